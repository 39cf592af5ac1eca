import { NestFactory } from '@nestjs/core';
import type { MicroserviceOptions } from '@nestjs/microservices';
import { BrowserPool } from '@trawl/browser-pool';
import { csv, loadEnv, ExtractorScrapeEnv } from '@trawl/config';
import { QUEUE_GROUPS } from '@trawl/contracts';
import { natsServerOptions, listenOnNats } from '@trawl/messaging';
import { createLogger, NestLoggerAdapter, startOpsServer, TrawlMetrics, type Telemetry } from '@trawl/telemetry';
import { AppModule } from './app.module.js';

const SERVICE = 'extractor-scrape';

/** Starts extractor-scrape: a Nest NATS microservice in its queue group with a warm browser, plus the ops server. */
export async function bootstrap({ telemetry }: { telemetry: Telemetry }): Promise<void> {
  const env = loadEnv(ExtractorScrapeEnv);
  const logger = createLogger({ service: SERVICE, level: env.LOG_LEVEL, bindings: { instance: env.INSTANCE_ID } });
  const app = await NestFactory.createMicroservice<MicroserviceOptions>(AppModule.forRoot(env), {
    ...natsServerOptions(csv(env.NATS_URL), QUEUE_GROUPS.extractorScrape),
    logger: new NestLoggerAdapter(logger),
  });
  const pool = app.get(BrowserPool);
  await pool.warmUp();
  let natsStatus = 'disconnected';
  app.status.subscribe((status) => (natsStatus = status));
  await listenOnNats(app);

  const metrics = new TrawlMetrics({ service: SERVICE });
  const gauges = metrics.browserPool;
  const sample = setInterval(() => {
    const s = pool.stats();
    gauges.browsers.set(s.browsers);
    gauges.busyPages.set(s.busyPages);
    gauges.waitQueue.set(s.queueLength);
  }, 1000);
  sample.unref();
  const ops =
    env.METRICS_PORT > 0
      ? await startOpsServer({
          port: env.METRICS_PORT,
          registry: metrics.registry,
          // Ready: NATS connected (work can reach it) and a browser up (work can be done).
          ready: () =>
            Promise.resolve({
              ok: natsStatus === 'connected' && pool.stats().browsers > 0,
              details: { nats: natsStatus, ...pool.stats() },
            }),
        })
      : undefined;
  logger.info({ queue: QUEUE_GROUPS.extractorScrape, pool: pool.stats() }, `${SERVICE} listening on NATS`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    clearInterval(sample);
    await app.close();
    await ops?.close();
    await telemetry.shutdown();
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
}
