import { parseAllowList, safeFetch } from '@trawl/safe-fetch';
import type { FetchFn } from './upstream-fetcher.service.js';

/**
 * The FetchFn the extractors use: Trawl's one HTTP client, `safeFetch` of @trawl/safe-fetch (every redirect hop
 * checked before the request, the socket's address checked again at connect time, decompression, capped body,
 * browser-like decoding; `allowHosts` is SSRF_ALLOW_HOSTS). A proxy (the dispatcher in the init) goes to `safeFetch`
 * as is: the target and every hop are still checked, and the proxy is asked for the checked address (Host and SNI
 * the name), so it never resolves the name again; the proxy itself is trusted configuration.
 */
export function guardedFetch(allowHosts: string | readonly string[]): FetchFn {
  const allow = parseAllowList(allowHosts);
  return async (url, init) => {
    const res = await safeFetch(url, {
      method: init.method,
      headers: init.headers,
      signal: init.signal,
      allow,
      ...(init.dispatcher ? { dispatcher: init.dispatcher } : {}),
      ...(init.maxBytes ? { maxBodyBytes: init.maxBytes } : {}),
    });
    const text = res.text();
    return {
      status: res.status,
      url: res.url,
      headers: { get: (name) => res.headers[name.toLowerCase()] ?? null },
      text: () => Promise.resolve(text),
    };
  };
}
