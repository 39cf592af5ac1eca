import { isErrorCode } from '@trawl/contracts';
import type { ErrorEnvelope } from '../../envelope/error-envelope.mapper.js';
import { ERRORS } from './firecrawl.constants.js';

/** Firecrawl's error answer: `{ success: false, error: "<text>", code }`, `error` always a string. */
export interface FirecrawlErrorBody {
  success: false;
  error: string;
  code: string;
  details?: { field: string };
}

/** A native failure (as the envelope mapper classified it) in Firecrawl's shape and status (ERRORS table). */
export function toFirecrawlError(envelope: ErrorEnvelope): { status: number; body: FirecrawlErrorBody } {
  const code = envelope.body.data.error;
  const mapped = isErrorCode(code) ? ERRORS[code] : ERRORS.INTERNAL;
  const field = envelope.body.data.field;
  return {
    status: mapped.status,
    body: {
      success: false,
      error: String(envelope.body.message),
      code: mapped.code,
      ...(field ? { details: { field } } : {}),
    },
  };
}
