import { csv, type ExtractorUpstreamEnv } from '@trawl/config';
import { ProxyRotation } from './proxy-rotation.js';
import { UpstreamFetcher, type FetchFn, type UpstreamParseObserver } from './upstream-fetcher.js';

/**
 * An UpstreamFetcher configured from an extractor's environment (proxies, cool-down, size limit); `parseObserver`
 * (the drift metrics) is told of every parsed page.
 */
export function upstreamFetcherFromEnv(
  env: ExtractorUpstreamEnv,
  fetch: FetchFn,
  parseObserver?: UpstreamParseObserver,
): UpstreamFetcher {
  const proxies = csv(env.PROXY_URLS);
  return new UpstreamFetcher({
    fetch,
    maxBytes: env.UPSTREAM_MAX_BYTES,
    ...(parseObserver ? { parseObserver } : {}),
    ...(proxies.length > 0 ? { proxies: new ProxyRotation(proxies, { cooldownMs: env.PROXY_COOLDOWN_MS }) } : {}),
  });
}
