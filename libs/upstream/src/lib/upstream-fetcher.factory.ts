import type { ExtractorUpstreamEnv } from '@trawl/config';
import type { UpstreamEngine } from '@trawl/contracts';
import { ProxyRotation } from '@trawl/safe-fetch';
import { ParseWorkPool } from './parse-work.pool.js';
import { UpstreamFetcher, type FetchFn, type UpstreamParseObserver } from './upstream-fetcher.service.js';
import { UpstreamPageSource, type RenderFn } from './upstream-page.source.js';

/**
 * An UpstreamFetcher configured from an extractor's environment (proxies, cool-down, size limit); `parseObserver`
 * (the drift metrics) is told of every parsed page.
 */
export function upstreamFetcherFromEnv(
  env: ExtractorUpstreamEnv,
  fetch: FetchFn,
  parseObserver?: UpstreamParseObserver,
): UpstreamFetcher {
  const proxies = env.PROXY_URLS;
  return new UpstreamFetcher({
    fetch,
    maxBytes: env.UPSTREAM_MAX_BYTES,
    ...(parseObserver ? { parseObserver } : {}),
    ...(proxies.length > 0 ? { proxies: new ProxyRotation(proxies, { cooldownMs: env.PROXY_COOLDOWN_MS }) } : {}),
  });
}

/** An UpstreamPageSource over `fetcher`, its default engine and browser memory from the environment. */
export function upstreamPageSourceFromEnv(
  env: ExtractorUpstreamEnv,
  fetcher: UpstreamFetcher,
  defaultEngine: UpstreamEngine,
  render: RenderFn | undefined,
): UpstreamPageSource {
  return new UpstreamPageSource({
    fetcher,
    defaultEngine,
    browserMemoryMs: env.UPSTREAM_BROWSER_MEMORY_MS,
    ...(render ? { render } : {}),
  });
}

/** The parse pool configured from an extractor's environment (PARSE_THREADS, PARSE_BUDGET_MS; ADR 0020). */
export function parseWorkPoolFromEnv(env: ExtractorUpstreamEnv): ParseWorkPool {
  return new ParseWorkPool({
    threads: env.PARSE_THREADS,
    budgetMs: env.PARSE_BUDGET_MS,
    inlineBelowChars: env.PARSE_INLINE_BELOW_CHARS,
  });
}
