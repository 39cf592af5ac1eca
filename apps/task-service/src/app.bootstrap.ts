import { loadEnv, TaskServiceEnv } from '@trawl/config';
import { QUEUES } from '@trawl/contracts';
import { runService } from '@trawl/service-runtime';
import { TaskQueues } from '@trawl/tasks';
import type { OpsMount, Telemetry } from '@trawl/telemetry';
import { closeTaskServiceApp, createTaskServiceApp } from './task-service-app.factory.js';
import { TaskRuntimeService } from './task-runtime.service.js';

/** Starts task-service (NATS microservice, workers, outcome publishing) on the service runtime. */
export async function bootstrap({ telemetry }: { telemetry: Telemetry }): Promise<void> {
  const env = loadEnv(TaskServiceEnv);
  await runService({
    service: 'task-service',
    env,
    telemetry,
    start: async ({ logger, nestLogger, metrics }) => {
      const app = await createTaskServiceApp(env, { logger: nestLogger, metrics });
      let natsStatus = 'disconnected';
      app.status.subscribe((status) => (natsStatus = status));
      await app.listen();
      const queues = app.get(TaskQueues);
      const runtime = app.get(TaskRuntimeService);
      const mounts: OpsMount[] = [];
      if (env.ADMIN_API_KEY && env.METRICS_PORT > 0) {
        // Loaded only when on: Bull Board brings @fastify/static along.
        const { queueBoardMount } = await import('./queue-board.factory.js');
        mounts.push(
          await queueBoardMount({
            queues: Object.values(QUEUES).map((name) => queues.queue(name)),
            adminKey: env.ADMIN_API_KEY,
            readOnly: env.BULL_BOARD_READ_ONLY,
          }),
        );
      } else {
        logger.info('queue dashboard /admin/queues is off (it needs ADMIN_API_KEY and METRICS_PORT)');
      }
      return {
        ready: () => {
          const workers = runtime.workerStates();
          return {
            // A worker being rebuilt (it took no jobs: its connection ended, or it sat on a demoted master) is not
            // ready until its replacement is (ADR 0015).
            ok:
              natsStatus === 'connected' &&
              queues.connection.status === 'ready' &&
              Object.values(workers).every((w) => w.state === 'taking-jobs'),
            // A paused queue (its extractors away) is not this service's fault: shown, but still ready.
            details: { nats: natsStatus, redis: queues.connection.status, fleets: runtime.fleetStates(), workers },
          };
        },
        mounts,
        stop: () => closeTaskServiceApp(app),
        started: { message: 'task-service listening on NATS', fields: { workers: env.TASK_WORKERS_ENABLED } },
      };
    },
  });
}
