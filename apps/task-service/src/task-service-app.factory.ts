import type { INestMicroservice, LoggerService } from '@nestjs/common';
import type { TaskServiceEnv } from '@trawl/config';
import { QUEUE_GROUPS } from '@trawl/contracts';
import { createNatsMicroservice, NEST_LOG_LEVELS, type NatsMicroserviceOptions } from '@trawl/service-runtime';
import type { TrawlMetrics } from '@trawl/telemetry';
import { AppModule } from './app.module.js';
import { CrawlRuntimeService } from './crawl-runtime.service.js';
import { TaskRuntimeService } from './task-runtime.service.js';

export interface TaskServiceAppOptions {
  /** Nest's logger (the service's pino logger); by default Nest's own, at LOG_LEVEL. */
  logger?: LoggerService;
  metrics?: TrawlMetrics;
}

/**
 * How the task-service microservice is built (`runNatsService` in app.bootstrap.ts, `createTaskServiceApp` in tests):
 * NATS handlers in the task-service queue group, a connection named after the instance, handlers in flight given
 * TASK_SHUTDOWN_GRACE_MS on shutdown.
 */
export function taskServiceMicroservice(env: TaskServiceEnv, metrics: TrawlMetrics | null): NatsMicroserviceOptions {
  return {
    queue: QUEUE_GROUPS.taskService,
    env,
    module: AppModule.forRoot(env, metrics),
    natsName: `task-service-${env.INSTANCE_ID}`,
    gracePeriodMs: env.TASK_SHUTDOWN_GRACE_MS,
  };
}

/** The task-service microservice (not yet listening), for in-process tests; the service starts in app.bootstrap.ts. */
export async function createTaskServiceApp(
  env: TaskServiceEnv,
  options: TaskServiceAppOptions = {},
): Promise<INestMicroservice> {
  return createNatsMicroservice({
    ...taskServiceMicroservice(env, options.metrics ?? null),
    logger: options.logger ?? NEST_LOG_LEVELS[env.LOG_LEVEL],
  });
}

/**
 * Stops the app (on SIGTERM): the workers stop taking jobs at once and finish the active ones while the NATS handlers
 * get their grace period (`TASK_SHUTDOWN_GRACE_MS`); then everything closes. Closing the app alone would let the
 * workers take new jobs until the grace period ends.
 */
export async function closeTaskServiceApp(app: INestMicroservice): Promise<void> {
  const workers = app.get(TaskRuntimeService).stopWorkers();
  const crawlWorkers = app.get(CrawlRuntimeService).stopWorkers();
  await Promise.all([workers, crawlWorkers, app.close()]);
}
