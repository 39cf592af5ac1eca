/**
 * How a crawl names a URL before it counts it (docs/decisions/0026-crawl-and-map.md): scheme and host lower-cased,
 * default ports dropped, the fragment dropped, an empty path made `/`, and with `ignoreQueryParameters` the query
 * dropped too. Two spellings of one page are one URL; anything but http(s) is no URL for a crawl.
 */
export function normalizeCrawlUrl(input: string, base?: string, ignoreQuery = false): string | undefined {
  let url: URL;
  try {
    url = base === undefined ? new URL(input) : new URL(input, base);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (url.username || url.password) return undefined;
  url.hash = '';
  if (ignoreQuery) url.search = '';
  // URL already lower-cases scheme and host and drops the scheme's default port.
  if (url.pathname === '') url.pathname = '/';
  return url.href;
}

/** The host a politeness budget is kept for: host and port, lower case. */
export function hostKeyOf(url: string): string {
  return new URL(url).host;
}

/** A host without a leading `www.`: `www.example.com` and `example.com` are one site. */
export function siteHost(hostname: string): string {
  return hostname.startsWith('www.') ? hostname.slice(4) : hostname;
}
