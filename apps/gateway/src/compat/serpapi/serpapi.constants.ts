import type { ErrorCode } from '@trawl/contracts';

/**
 * SerpAPI's API onto Trawl's native search operations: every translation table of this peer, in one place
 * (serpapi.controller.ts reads these; ADR 0024).
 */

/** SerpAPI's words for a missing or wrong key (its 401). */
export const INVALID_KEY_MESSAGE = 'Invalid API key. Your API key should be here: https://serpapi.com/manage-api-key';

/** SerpAPI's answer, with status 200, when a search found nothing. */
export const EMPTY_RESULTS_MESSAGE = "Google hasn't returned any results for this query.";

/** SerpAPI's statuses: 400, 401, 403, 404, 429, 500, 503 (it answers no 502 or 504). */
export const ERROR_STATUS: Readonly<Record<ErrorCode, number>> = {
  VALIDATION_FAILED: 400,
  MALFORMED_JSON: 400,
  JSON_TOO_DEEP: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  TASK_NOT_FOUND: 404,
  TASK_FINISHED: 400,
  TASK_CANCELLED: 400,
  IDEMPOTENCY_KEY_REUSED: 400,
  IDEMPOTENCY_KEY_IN_PROGRESS: 429,
  METHOD_NOT_ALLOWED: 400,
  PAYLOAD_TOO_LARGE: 400,
  URI_TOO_LONG: 400,
  UNSUPPORTED_MEDIA_TYPE: 400,
  HEADERS_TOO_LARGE: 400,
  URL_NOT_ALLOWED: 400,
  RATE_LIMITED: 429,
  PAGE_NOT_RECOGNISED: 500,
  UNSUPPORTED_CONTENT_TYPE: 500,
  CONTENT_TOO_LARGE: 500,
  PAGE_TOO_COMPLEX: 500,
  UPSTREAM_NOT_FOUND: 500,
  UPSTREAM_ERROR: 500,
  UPSTREAM_BLOCKED: 503,
  UPSTREAM_TIMEOUT: 503,
  SERVICE_UNAVAILABLE: 503,
  OVERLOADED: 503,
  INTERNAL: 500,
};
