import { isErrorCode } from '@trawl/contracts';
import type { ErrorEnvelope } from '../../envelope/error-envelope.mapper.js';
import { ERROR_STATUS, INVALID_KEY_MESSAGE } from './serpapi.constants.js';

/**
 * A failure in SerpAPI's shape: `{ error: "<text>" }` with SerpAPI's statuses (ERROR_STATUS). The message is the
 * native one, which never holds the query string (the key travels there); a bad key gets SerpAPI's own words.
 */
export function toSerpApiError(envelope: ErrorEnvelope): { status: number; body: { error: string } } {
  const code = envelope.body.data.error;
  const status = isErrorCode(code) ? ERROR_STATUS[code] : 500;
  const error = code === 'UNAUTHORIZED' ? INVALID_KEY_MESSAGE : String(envelope.body.message);
  return { status, body: { error } };
}
