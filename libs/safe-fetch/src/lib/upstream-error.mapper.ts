import { TrawlError } from '@trawl/contracts';

const TIMEOUT_NAMES = new Set([
  'AbortError',
  'TimeoutError',
  'HeadersTimeoutError',
  'BodyTimeoutError',
  'ConnectTimeoutError',
]);
const TIMEOUT_CODES = new Set([
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'ETIMEDOUT',
  'ABORT_ERR',
]);
const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NODATA', 'EAI_FAIL', 'EAI_NONAME']);

/**
 * Maps a failure to reach a page onto the wire codes: a TrawlError (the SSRF guard's refusal) stays as it is, a
 * timeout or abort is UPSTREAM_TIMEOUT, a DNS or connection failure is UPSTREAM_ERROR naming the host.
 */
export function toUpstreamError(e: unknown, host: string): TrawlError {
  for (let cur: unknown = e, depth = 0; cur instanceof Error && depth < 5; cur = cur.cause, depth++) {
    if (cur instanceof TrawlError) return cur;
  }
  const err = e as NodeJS.ErrnoException;
  const code = err?.code ?? (err?.cause as NodeJS.ErrnoException | undefined)?.code ?? '';
  if (TIMEOUT_NAMES.has(err?.name) || TIMEOUT_CODES.has(code)) {
    return new TrawlError('UPSTREAM_TIMEOUT', `${host} did not answer in time`, { cause: e });
  }
  if (DNS_CODES.has(code))
    return new TrawlError('UPSTREAM_ERROR', `could not resolve host ${host} (${code})`, { cause: e });
  const detail = code || (err instanceof Error ? err.message : String(e));
  return new TrawlError('UPSTREAM_ERROR', `could not fetch from ${host}: ${detail}`, { cause: e });
}
