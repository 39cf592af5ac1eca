/**
 * A response's `Retry-After` header, kept where it says when to come back: on a 429 (too many requests) or a 503
 * (unavailable), trimmed and at most 64 characters (seconds, or an HTTP date). `{}` otherwise, to spread into a page.
 */
export function retryAfterOf(status: number, header: string | undefined): { retryAfter?: string } {
  if (status !== 429 && status !== 503) return {};
  const value = header?.trim().slice(0, 64);
  return value ? { retryAfter: value } : {};
}
