import type { ErrorCode } from '@trawl/contracts';

/**
 * SerpAPI's API onto Trawl's native search operations: every translation table of this peer, in one place
 * (serp-api.controller.ts reads these; ADR 0024).
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
  LLM_UNAVAILABLE: 500,
  LLM_ANSWER_INVALID: 500,
  // SerpAPI's own answer when an account's searches of the month are spent.
  LLM_BUDGET_EXHAUSTED: 429,
  INTERNAL: 500,
};

/** The engines Trawl answers, and what each runs natively. */
export const ENGINES = ['google', 'google_maps'] as const;
export type SerpApiEngine = (typeof ENGINES)[number];

/**
 * What Trawl does with one query parameter:
 * - `mapped`: copied (as text, or as a number when `number`) onto the native request's field `native`;
 * - `unsupported`: Trawl does not do this: named in the answer's `warning` when given;
 * - `inert`: changes nothing in the answer (the client's source tag, the output Trawl gives anyway).
 */
export type ParamRule =
  { kind: 'mapped'; native: string; number?: boolean } | { kind: 'unsupported'; why: string } | { kind: 'inert' };

/** Parameters of every engine. */
const COMMON: Readonly<Record<string, ParamRule>> = {
  engine: { kind: 'inert' },
  api_key: { kind: 'inert' },
  output: { kind: 'inert' },
  source: { kind: 'inert' },
  json_restrictor: { kind: 'unsupported', why: 'Trawl answers the whole JSON' },
  async: { kind: 'unsupported', why: 'Trawl answers every search synchronously' },
  zero_trace: { kind: 'inert' },
  google_domain: { kind: 'inert' },
  no_cache: { kind: 'inert' }, // read by the controller: `true` asks for a fresh answer (maxAge 0)
  hl: { kind: 'mapped', native: 'hl' },
  start: { kind: 'mapped', native: 'start', number: true },
};

/** engine=google onto the native web search (POST /extract/search). */
export const GOOGLE_PARAMS: Readonly<Record<string, ParamRule>> = {
  ...COMMON,
  q: { kind: 'mapped', native: 'q' },
  gl: { kind: 'mapped', native: 'gl' },
  num: { kind: 'mapped', native: 'num', number: true },
  location: { kind: 'mapped', native: 'location' },
  tbs: { kind: 'mapped', native: 'tbs' },
  lr: { kind: 'mapped', native: 'lr' },
  cr: { kind: 'mapped', native: 'cr' },
  uule: { kind: 'unsupported', why: 'pass location instead of uule' },
  device: { kind: 'unsupported', why: 'Trawl searches as a desktop browser' },
  safe: { kind: 'unsupported', why: 'Trawl does not set SafeSearch' },
  filter: { kind: 'unsupported', why: 'Trawl does not change Google’s result filters' },
  nfpr: { kind: 'unsupported', why: 'Trawl does not change Google’s autocorrection' },
  tbm: { kind: 'unsupported', why: 'Trawl searches the web (tbm=map: use engine=google_maps)' },
  ludocid: { kind: 'unsupported', why: 'Trawl has no place id lookup on engine=google' },
  kgmid: { kind: 'unsupported', why: 'Trawl has no Knowledge Graph id lookup' },
};

/** engine=google_maps onto the native maps search (POST /extract/search/maps) or place page (POST /extract). */
export const GOOGLE_MAPS_PARAMS: Readonly<Record<string, ParamRule>> = {
  ...COMMON,
  q: { kind: 'mapped', native: 'q' },
  ll: { kind: 'mapped', native: 'll' },
  type: { kind: 'inert' }, // read by the controller: `search` (default) or `place`
  place_id: { kind: 'inert' }, // read by the controller (type=place)
  data: { kind: 'unsupported', why: 'pass place_id instead of data' },
  data_cid: { kind: 'unsupported', why: 'pass place_id instead of data_cid' },
  num: { kind: 'mapped', native: 'num', number: true },
  gl: { kind: 'unsupported', why: 'Trawl’s maps search takes the language (hl) and the map (ll) only' },
  location: { kind: 'unsupported', why: 'pass ll (@lat,lng,zoomz) instead of location' },
  z: { kind: 'unsupported', why: 'pass the zoom in ll' },
  m: { kind: 'unsupported', why: 'pass the zoom in ll' },
};

/** Google's web address the `search_metadata.google_url` and `pagination` links name. */
export const GOOGLE_ORIGIN = 'https://www.google.com';
