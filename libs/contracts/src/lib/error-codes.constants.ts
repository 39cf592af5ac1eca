import type { WireError } from './envelope.schema.js';
/**
 * Every error code that crosses a boundary (NATS reply or HTTP envelope). The gateway answers each with exactly one
 * HTTP status, from ERROR_HTTP_STATUS below: a `Record` over the union, so a code added here without a status does
 * not compile. The envelope's `errorCode` is that HTTP status; `code` is the status as well, `message` names the
 * cause and `data` carries `{ error: <ErrorCode>, field?, retryable }`. See docs/errors.md.
 */
export const ERROR_CODES = [
  'VALIDATION_FAILED',
  'MALFORMED_JSON',
  'JSON_TOO_DEEP',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'NOT_FOUND',
  'TASK_NOT_FOUND',
  'TASK_FINISHED',
  'TASK_CANCELLED',
  'IDEMPOTENCY_KEY_REUSED',
  'IDEMPOTENCY_KEY_IN_PROGRESS',
  'METHOD_NOT_ALLOWED',
  'PAYLOAD_TOO_LARGE',
  'URI_TOO_LONG',
  'UNSUPPORTED_MEDIA_TYPE',
  'HEADERS_TOO_LARGE',
  'URL_NOT_ALLOWED',
  'RATE_LIMITED',
  'PAGE_NOT_RECOGNISED',
  'UNSUPPORTED_CONTENT_TYPE',
  'CONTENT_TOO_LARGE',
  'PAGE_TOO_COMPLEX',
  'UPSTREAM_NOT_FOUND',
  'UPSTREAM_ERROR',
  'UPSTREAM_BLOCKED',
  'UPSTREAM_TIMEOUT',
  'SERVICE_UNAVAILABLE',
  'OVERLOADED',
  'LLM_UNAVAILABLE',
  'LLM_ANSWER_INVALID',
  'LLM_BUDGET_EXHAUSTED',
  'INTERNAL',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export const ERROR_HTTP_STATUS: Record<ErrorCode, number> = {
  VALIDATION_FAILED: 400,
  MALFORMED_JSON: 400,
  JSON_TOO_DEEP: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  TASK_NOT_FOUND: 404,
  TASK_FINISHED: 409,
  TASK_CANCELLED: 409,
  IDEMPOTENCY_KEY_REUSED: 409,
  IDEMPOTENCY_KEY_IN_PROGRESS: 409,
  METHOD_NOT_ALLOWED: 405,
  PAYLOAD_TOO_LARGE: 413,
  URI_TOO_LONG: 414,
  UNSUPPORTED_MEDIA_TYPE: 415,
  HEADERS_TOO_LARGE: 431,
  URL_NOT_ALLOWED: 422,
  RATE_LIMITED: 429,
  PAGE_NOT_RECOGNISED: 422,
  UNSUPPORTED_CONTENT_TYPE: 422,
  CONTENT_TOO_LARGE: 422,
  PAGE_TOO_COMPLEX: 422,
  UPSTREAM_NOT_FOUND: 502,
  UPSTREAM_ERROR: 502,
  UPSTREAM_BLOCKED: 503,
  UPSTREAM_TIMEOUT: 504,
  SERVICE_UNAVAILABLE: 503,
  OVERLOADED: 503,
  LLM_UNAVAILABLE: 502,
  LLM_ANSWER_INVALID: 502,
  LLM_BUDGET_EXHAUSTED: 429,
  INTERNAL: 500,
};

/** Whether a task that failed with this code is worth another attempt. */
export const ERROR_RETRYABLE: Record<ErrorCode, boolean> = {
  VALIDATION_FAILED: false,
  MALFORMED_JSON: false,
  JSON_TOO_DEEP: false,
  UNAUTHORIZED: false,
  FORBIDDEN: false,
  NOT_FOUND: false,
  TASK_NOT_FOUND: false,
  TASK_FINISHED: false,
  TASK_CANCELLED: false,
  IDEMPOTENCY_KEY_REUSED: false,
  IDEMPOTENCY_KEY_IN_PROGRESS: true,
  METHOD_NOT_ALLOWED: false,
  PAYLOAD_TOO_LARGE: false,
  URI_TOO_LONG: false,
  UNSUPPORTED_MEDIA_TYPE: false,
  HEADERS_TOO_LARGE: false,
  URL_NOT_ALLOWED: false,
  RATE_LIMITED: true,
  PAGE_NOT_RECOGNISED: false,
  UNSUPPORTED_CONTENT_TYPE: false,
  CONTENT_TOO_LARGE: false,
  PAGE_TOO_COMPLEX: false,
  UPSTREAM_NOT_FOUND: false,
  UPSTREAM_ERROR: true,
  UPSTREAM_BLOCKED: true,
  UPSTREAM_TIMEOUT: true,
  SERVICE_UNAVAILABLE: true,
  OVERLOADED: true,
  LLM_UNAVAILABLE: true,
  LLM_ANSWER_INVALID: false,
  LLM_BUDGET_EXHAUSTED: false,
  INTERNAL: false,
};

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && (ERROR_CODES as readonly string[]).includes(value);
}

export function isWireError(value: unknown): value is WireError {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return isErrorCode(v.code) && typeof v.message === 'string' && typeof v.retryable === 'boolean';
}

/**
 * The one error type services throw for an expected failure. It carries a wire code; the RPC filter turns it into a
 * WireError reply and the gateway into the envelope. Anything else thrown is INTERNAL.
 */
export class TrawlError extends Error {
  readonly retryable: boolean;

  constructor(
    readonly code: ErrorCode,
    message: string,
    options: { retryable?: boolean; field?: string; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'TrawlError';
    this.retryable = options.retryable ?? ERROR_RETRYABLE[code];
    this.field = options.field;
  }

  readonly field?: string;

  toWire(): WireError {
    return {
      code: this.code,
      message: this.message,
      retryable: this.retryable,
      ...(this.field ? { field: this.field } : {}),
    };
  }

  static fromWire(wire: WireError): TrawlError {
    return new TrawlError(wire.code, wire.message, { retryable: wire.retryable, field: wire.field });
  }
}
