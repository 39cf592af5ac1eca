import { NestFactory } from '@nestjs/core';
import type { MicroserviceOptions } from '@nestjs/microservices';
import { csv, loadEnv, ExtractorMapsEnv } from '@trawl/config';
import { QUEUE_GROUPS } from '@trawl/contracts';
import { natsServerOptions, listenOnNats } from '@trawl/messaging';
import { createLogger, NestLoggerAdapter, startOpsServer, TrawlMetrics, type Telemetry } from '@trawl/telemetry';
import { guardedFetch } from '@trawl/upstream';
import { AppModule } from './app.module.js';

const SERVICE = 'extractor-maps';

/** Starts extractor-maps: a Nest NATS microservice in its queue group, plus the ops server. */
export async function bootstrap({ telemetry }: { telemetry: Telemetry }): Promise<void> {
  const env = loadEnv(ExtractorMapsEnv);
  const logger = createLogger({ service: SERVICE, level: env.LOG_LEVEL, bindings: { instance: env.INSTANCE_ID } });
  const app = await NestFactory.createMicroservice<MicroserviceOptions>(
    AppModule.forRoot(env, guardedFetch(csv(env.SSRF_ALLOW_HOSTS))),
    {
      ...natsServerOptions(csv(env.NATS_URL), QUEUE_GROUPS.extractorMaps),
      logger: new NestLoggerAdapter(logger),
    },
  );
  let natsStatus = 'disconnected';
  app.status.subscribe((status) => (natsStatus = status));
  await listenOnNats(app);
  const metrics = new TrawlMetrics({ service: SERVICE });
  const ops =
    env.METRICS_PORT > 0
      ? await startOpsServer({
          port: env.METRICS_PORT,
          registry: metrics.registry,
          ready: () => Promise.resolve({ ok: natsStatus === 'connected', details: { nats: natsStatus } }),
        })
      : undefined;
  logger.info({ queue: QUEUE_GROUPS.extractorMaps }, `${SERVICE} listening on NATS`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    await app.close();
    await ops?.close();
    await telemetry.shutdown();
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
}
