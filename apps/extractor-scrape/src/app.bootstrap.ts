import type { INestMicroservice } from '@nestjs/common';
import { AdBlocker, BrowserPool, sandboxDecision } from '@trawl/browser-pool';
import { loadEnv, ExtractorScrapeEnv } from '@trawl/config';
import { QUEUE_GROUPS } from '@trawl/contracts';
import { ProxyRotation } from '@trawl/safe-fetch';
import { runNatsService } from '@trawl/service-runtime';
import { TrawlMetrics, type Telemetry } from '@trawl/telemetry';
import { AppModule } from './app.module.js';
import { poolReadiness } from './pool-readiness.policy.js';

const SERVICE = 'extractor-scrape';

/**
 * Starts extractor-scrape: a warm browser pool, its subject served in its NATS queue group, the ops server (ready
 * when NATS is connected, a browser is up and not every page slot is stuck: poolReadiness; pool size, busy pages and wait queue sampled every second), shutdown
 * on SIGTERM.
 */
export async function bootstrap({ telemetry }: { telemetry: Telemetry }): Promise<void> {
  const env = loadEnv(ExtractorScrapeEnv);
  const metrics = new TrawlMetrics({ service: SERVICE });
  let pool: BrowserPool | undefined;
  let sample: NodeJS.Timeout | undefined;
  let adBlocker: AdBlocker | undefined;
  const { logger } = await runNatsService({
    service: SERVICE,
    queue: QUEUE_GROUPS.extractorScrape,
    env,
    telemetry,
    metrics,
    module: AppModule.forRoot(env, metrics),
    beforeListen: async (app: INestMicroservice) => {
      const browsers = app.get(BrowserPool);
      pool = browsers;
      adBlocker = app.get(AdBlocker);
      await browsers.warmUp();
      const gauges = metrics.browserPool;
      const proxies = app.get(ProxyRotation);
      sample = setInterval(() => {
        const cooling = new Set(proxies.resting());
        for (const p of proxies.all()) metrics.proxy.cooling.set({ proxy: proxyLabel(p) }, cooling.has(p) ? 1 : 0);
        const s = browsers.stats();
        gauges.browsers.set(s.browsers);
        gauges.busyPages.set(s.busyPages);
        gauges.waitQueue.set(s.queueLength);
      }, 1000);
      sample.unref();
    },
    ready: () => poolReadiness(pool?.stats()),
    onStop: () => clearInterval(sample),
  });
  const sandbox = sandboxDecision(env.BROWSER_NO_SANDBOX);
  if (!sandbox.sandbox) logger.warn({ reason: sandbox.reason }, 'Chromium runs without its sandbox (--no-sandbox)');
  for (const list of adBlocker?.unreadLists ?? []) {
    logger.warn(
      { list: list.path, error: list.error },
      'blockAds filter list not loaded (BLOCK_ADS_LISTS): ads are blocked by the tracker database and the other lists only',
    );
  }
  logger.info({ pool: pool?.stats() }, 'browser pool warm');
}

/** A proxy's name in metrics: host:port, never its credentials. */
function proxyLabel(url: string): string {
  const u = new URL(url);
  return `${u.hostname}:${u.port || 80}`;
}
