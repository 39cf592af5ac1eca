import type { Span } from '@opentelemetry/api';

/** Query parameters that carry a credential (SerpAPI's `api_key` among them): never recorded as they are. */
const SECRET_PARAMS = /^(api_key|apikey|api-key|key|token|access_token|auth|password)$/i;

/** `url` (a path with a query, or an absolute URL) with the values of credential parameters replaced by REDACTED. */
export function redactUrlSecrets(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const hash = url.indexOf('#', q);
  const query = url.slice(q + 1, hash < 0 ? undefined : hash);
  const redacted = query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = decodeSafe(eq < 0 ? pair : pair.slice(0, eq));
      return eq >= 0 && SECRET_PARAMS.test(name) ? `${pair.slice(0, eq)}=REDACTED` : pair;
    })
    .join('&');
  return `${url.slice(0, q + 1)}${redacted}${hash < 0 ? '' : url.slice(hash)}`;
}

function decodeSafe(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
}

/** The span attributes of an HTTP span that hold the URL or its query (old and stable semantic conventions). */
const URL_ATTRIBUTES = ['http.url', 'http.target', 'url.full', 'url.query'] as const;

/**
 * Rewrites the URL attributes an HTTP instrumentation set on `span` with credentials redacted. `attributes` is what
 * the span holds (read from the request when the span does not expose them).
 */
export function redactSpanUrls(span: Span, attributes: Record<string, unknown>): void {
  for (const name of URL_ATTRIBUTES) {
    const value = attributes[name];
    if (typeof value !== 'string' || !value.includes('=')) continue;
    // `url.query` is the query alone, without its `?`.
    span.setAttribute(name, name === 'url.query' ? redactUrlSecrets(`?${value}`).slice(1) : redactUrlSecrets(value));
  }
}
