import type { INestMicroservice } from '@nestjs/common';
import { loadEnv, TaskServiceEnv } from '@trawl/config';
import { QUEUES } from '@trawl/contracts';
import { runNatsService } from '@trawl/service-runtime';
import { TaskQueues } from '@trawl/tasks';
import { TrawlMetrics, type Logger, type OpsMount, type Telemetry } from '@trawl/telemetry';
import { closeTaskServiceApp, taskServiceMicroservice } from './task-service-app.factory.js';
import { TaskRuntimeService } from './task-runtime.service.js';

/** Starts task-service (NATS microservice, workers, outcome publishing) on the shared NATS service runtime. */
export async function bootstrap({ telemetry }: { telemetry: Telemetry }): Promise<void> {
  const env = loadEnv(TaskServiceEnv);
  // One registry for the ops server's /metrics and the workers' and NATS requests' metrics.
  const metrics = new TrawlMetrics({ service: 'task-service' });

  /** The queue dashboard at /admin/queues on the ops server, when it is on. */
  const queueBoard = async (app: INestMicroservice, logger: Logger): Promise<OpsMount[]> => {
    if (!env.ADMIN_API_KEY || env.METRICS_PORT <= 0) {
      logger.info('queue dashboard /admin/queues is off (it needs ADMIN_API_KEY and METRICS_PORT)');
      return [];
    }
    // Loaded only when on: Bull Board brings @fastify/static along.
    const { queueBoardMount } = await import('./queue-board.factory.js');
    const queues = app.get(TaskQueues);
    return [
      await queueBoardMount({
        queues: Object.values(QUEUES).map((name) => queues.queue(name)),
        adminKey: env.ADMIN_API_KEY,
        readOnly: env.BULL_BOARD_READ_ONLY,
      }),
    ];
  };

  await runNatsService({
    service: 'task-service',
    ...taskServiceMicroservice(env, metrics),
    telemetry,
    metrics,
    ready: (app) => {
      const queues = app.get(TaskQueues);
      const runtime = app.get(TaskRuntimeService);
      const workers = runtime.workerStates();
      return {
        // A worker being rebuilt (it took no jobs: its connection ended, or it sat on a demoted master) is not
        // ready until its replacement is (ADR 0015).
        ok: queues.connection.status === 'ready' && Object.values(workers).every((w) => w.state === 'taking-jobs'),
        // A paused queue (its extractors away) is not this service's fault: shown, but still ready.
        details: { redis: queues.connection.status, fleets: runtime.fleetStates(), workers },
      };
    },
    mounts: queueBoard,
    // Workers stop taking jobs first, while the NATS handlers drain.
    close: closeTaskServiceApp,
    startedFields: { workers: env.TASK_WORKERS_ENABLED },
  });
}
