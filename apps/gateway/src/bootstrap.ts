import { GatewayEnv, loadEnv } from '@trawl/config';
import { createLogger, NestLoggerAdapter, TrawlMetrics, type Telemetry } from '@trawl/telemetry';
import { createGatewayApp } from './gateway-app.factory.js';

/** Starts the gateway process: validated env, JSON logs, metrics, HTTP listener; closes cleanly on SIGTERM. */
export async function bootstrap({ telemetry }: { telemetry: Telemetry }): Promise<void> {
  const env = loadEnv(GatewayEnv);
  const logger = createLogger({ service: 'gateway', level: env.LOG_LEVEL, bindings: { instance: env.INSTANCE_ID } });
  const app = await createGatewayApp(env, {
    logger: new NestLoggerAdapter(logger),
    metrics: new TrawlMetrics({ service: 'gateway' }),
  });
  // Nest's shutdown hooks close the app on SIGTERM (in-flight requests finish, NATS drains); spans are flushed as
  // the HTTP server closes.
  app.getHttpAdapter().getInstance().addHook('onClose', async () => telemetry.shutdown());
  await app.listen({ port: env.PORT, host: env.HOST });
  logger.info({ port: env.PORT }, 'gateway listening');
}
