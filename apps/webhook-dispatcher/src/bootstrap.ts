import type { NatsConnection } from '@nats-io/nats-core';
import { loadEnv, WebhookDispatcherEnv } from '@trawl/config';
import { followNatsStatus, NATS_CONNECTION } from '@trawl/messaging';
import { createLogger, NestLoggerAdapter, startOpsServer, TrawlMetrics, type Telemetry } from '@trawl/telemetry';
import { DispatcherService } from './dispatcher.service.js';
import { createWebhookDispatcherApp } from './webhook-dispatcher-app.factory.js';

const SERVICE = 'webhook-dispatcher';

/** Starts the webhook dispatcher and its ops server. */
export async function bootstrap({ telemetry }: { telemetry: Telemetry }): Promise<void> {
  const env = loadEnv(WebhookDispatcherEnv);
  const logger = createLogger({ service: SERVICE, level: env.LOG_LEVEL, bindings: { instance: env.INSTANCE_ID } });
  const metrics = new TrawlMetrics({ service: SERVICE });
  const app = await createWebhookDispatcherApp(env, { logger: new NestLoggerAdapter(logger), metrics });
  await app.init();
  const nc = app.get<NatsConnection>(NATS_CONNECTION);
  const natsStatus = followNatsStatus(nc);
  const dispatcher = app.get(DispatcherService);
  const ops =
    env.METRICS_PORT > 0
      ? await startOpsServer({
          port: env.METRICS_PORT,
          registry: metrics.registry,
          // A lost consumer (its stream's node gone, being rebound) is not ready: no outcome is delivered meanwhile.
          ready: async () => {
            const consumer = dispatcher.consumerState();
            return {
              ok: natsStatus() === 'connected' && consumer === 'bound',
              details: { nats: natsStatus(), consumer },
            };
          },
        })
      : undefined;
  logger.info(`${SERVICE} consuming task outcomes`);

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
