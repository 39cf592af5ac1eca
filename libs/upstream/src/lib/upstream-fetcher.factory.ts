import { csv, type ExtractorUpstreamEnv } from '@trawl/config';
import { ProxyRotation } from './proxy-rotation.js';
import { UpstreamFetcher, type FetchFn } from './upstream-fetcher.js';

/** An UpstreamFetcher configured from an extractor's environment (proxies, cool-down, size limit). */
export function upstreamFetcherFromEnv(env: ExtractorUpstreamEnv, fetch: FetchFn): UpstreamFetcher {
  const proxies = csv(env.PROXY_URLS);
  return new UpstreamFetcher({
    fetch,
    maxBytes: env.UPSTREAM_MAX_BYTES,
    ...(proxies.length > 0 ? { proxies: new ProxyRotation(proxies, { cooldownMs: env.PROXY_COOLDOWN_MS }) } : {}),
  });
}
