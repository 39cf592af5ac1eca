import { HttpException } from '@nestjs/common';
import { ERROR_HTTP_STATUS, TrawlError, type Envelope, type ErrorCode, type ErrorData } from '@trawl/contracts';

/** Fastify's own errors (raised by the router or the body parser, before a route runs) mapped to our codes. */
const FASTIFY_ERRORS: Record<string, { code: ErrorCode; message: string; field: string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: {
    code: 'PAYLOAD_TOO_LARGE',
    message: 'request body is larger than the limit',
    field: 'body',
  },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    code: 'UNSUPPORTED_MEDIA_TYPE',
    message: 'Content-Type must be application/json',
    field: 'body',
  },
  FST_ERR_CTP_INVALID_TYPE: {
    code: 'UNSUPPORTED_MEDIA_TYPE',
    message: 'Content-Type must be application/json',
    field: 'body',
  },
  FST_ERR_CTP_EMPTY_JSON_BODY: {
    code: 'MALFORMED_JSON',
    message: 'request body is empty; send a JSON object',
    field: 'body',
  },
  FST_ERR_CTP_INVALID_JSON_BODY: { code: 'MALFORMED_JSON', message: 'request body is not valid JSON', field: 'body' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: {
    code: 'MALFORMED_JSON',
    message: 'Content-Length does not match the body',
    field: 'body',
  },
  FST_ERR_MAX_PARAM_LENGTH: {
    code: 'URI_TOO_LONG',
    message: 'a path parameter is longer than 256 characters',
    field: 'path',
  },
  FST_ERR_BAD_URL: {
    code: 'VALIDATION_FAILED',
    message: 'the request path is not a valid URL (bad percent-encoding)',
    field: 'path',
  },
};

const STATUS_TO_CODE: Record<number, ErrorCode> = {
  400: 'VALIDATION_FAILED',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  413: 'PAYLOAD_TOO_LARGE',
  414: 'URI_TOO_LONG',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  431: 'HEADERS_TOO_LARGE',
  429: 'RATE_LIMITED',
  503: 'SERVICE_UNAVAILABLE',
};

export interface ErrorEnvelope {
  status: number;
  body: Envelope<ErrorData>;
}

/**
 * The one mapping from anything thrown while serving a request to the failure envelope: a TrawlError keeps its code
 * (status from ERROR_HTTP_STATUS), Fastify and Nest HTTP errors get the matching code, anything else is a 500 whose
 * message says nothing of the internals.
 */
export function toErrorEnvelope(error: unknown, requestId: string): ErrorEnvelope {
  const { code, message, field, retryable } = classify(error);
  const status = ERROR_HTTP_STATUS[code];
  return {
    status,
    body: {
      requestId,
      code: status,
      errorCode: status,
      message,
      timestamp: Date.now(),
      data: { error: code, retryable, ...(field ? { field } : {}) },
    },
  };
}

function classify(error: unknown): { code: ErrorCode; message: string; field?: string; retryable: boolean } {
  if (error instanceof TrawlError) {
    return { code: error.code, message: error.message, field: error.field, retryable: error.retryable };
  }
  if (error instanceof HttpException) {
    const status = error.getStatus();
    const message = httpExceptionMessage(error);
    // Nest's Fastify adapter reports an unparsable JSON body as a plain 400.
    if (status === 400 && /json/i.test(message)) {
      return {
        code: 'MALFORMED_JSON',
        message: `request body is not valid JSON (${message})`,
        field: 'body',
        retryable: false,
      };
    }
    if (status === 415) return { ...FASTIFY_ERRORS.FST_ERR_CTP_INVALID_MEDIA_TYPE, retryable: false };
    // Nest's "Cannot GET /path?query": the query may carry a key (SerpAPI's api_key); name the path only.
    if (status === 404) return { code: 'NOT_FOUND', message: message.replace(/\?\S*/, ''), retryable: false };
    const code = STATUS_TO_CODE[status] ?? (status >= 500 ? 'INTERNAL' : 'VALIDATION_FAILED');
    return { code, message, retryable: false };
  }
  const e = error as { code?: unknown; statusCode?: unknown; message?: unknown } | null;
  if (e && typeof e.code === 'string' && FASTIFY_ERRORS[e.code]) {
    return { ...FASTIFY_ERRORS[e.code], retryable: false };
  }
  if (error instanceof SyntaxError) {
    // JSON.parse's and secure-json-parse's messages name a position or the forbidden member, never our internals.
    return {
      code: 'MALFORMED_JSON',
      message: `request body is not valid JSON (${error.message})`,
      field: 'body',
      retryable: false,
    };
  }
  if (e && e.statusCode === 400) {
    return { code: 'MALFORMED_JSON', message: 'request body is not valid JSON', field: 'body', retryable: false };
  }
  if (e && typeof e.statusCode === 'number' && STATUS_TO_CODE[e.statusCode]) {
    return { code: STATUS_TO_CODE[e.statusCode], message: String(e.message ?? 'request failed'), retryable: false };
  }
  if (e && typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    // Any other client error a plugin raises: a 400 that names it, not a 500.
    return { code: 'VALIDATION_FAILED', message: String(e.message ?? 'bad request'), retryable: false };
  }
  return { code: 'INTERNAL', message: 'internal error', retryable: false };
}

function httpExceptionMessage(error: HttpException): string {
  const response = error.getResponse();
  if (typeof response === 'string') return response;
  const m = (response as { message?: unknown }).message;
  if (Array.isArray(m)) return m.join('; ');
  return typeof m === 'string' ? m : error.message;
}
