import { loadEnv, TaskServiceEnv } from '@trawl/config';
import { hasLegacyQueueKeys, TaskQueues } from '@trawl/tasks';
import { createLogger, NestLoggerAdapter, startOpsServer, TrawlMetrics, type Telemetry } from '@trawl/telemetry';
import { closeTaskServiceApp, createTaskServiceApp } from './task-service-app.factory.js';
import { TaskRuntimeService } from './task-runtime.service.js';

const SERVICE = 'task-service';

/** Starts task-service (NATS microservice, workers, outcome publishing) and its ops server. */
export async function bootstrap({ telemetry }: { telemetry: Telemetry }): Promise<void> {
  const env = loadEnv(TaskServiceEnv);
  const logger = createLogger({ service: SERVICE, level: env.LOG_LEVEL, bindings: { instance: env.INSTANCE_ID } });
  const metrics = new TrawlMetrics({ service: SERVICE });
  const app = await createTaskServiceApp(env, { logger: new NestLoggerAdapter(logger), metrics });
  let natsStatus = 'disconnected';
  app.status.subscribe((status) => (natsStatus = status));
  await app.listen();
  const redis = app.get(TaskQueues).connection;
  // Jobs of a previous version under the legacy prefix are not run until moved (ADR 0014): say so at once.
  if (await hasLegacyQueueKeys(redis).catch(() => false)) {
    logger.warn(
      'queues of the previous key layout (bull:<queue>:…) are in Redis: stop the services and run `npm run redis:migrate`',
    );
  }
  const runtime = app.get(TaskRuntimeService);
  const ops =
    env.METRICS_PORT > 0
      ? await startOpsServer({
          port: env.METRICS_PORT,
          registry: metrics.registry,
          ready: async () => ({
            ok: natsStatus === 'connected' && redis.status === 'ready',
            // A paused queue (its extractors away) is not this service's fault: shown, but still ready.
            details: { nats: natsStatus, redis: redis.status, fleets: runtime.fleetStates() },
          }),
        })
      : undefined;
  logger.info({ workers: env.TASK_WORKERS_ENABLED }, `${SERVICE} listening on NATS`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    await closeTaskServiceApp(app);
    await ops?.close();
    await telemetry.shutdown();
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
}
