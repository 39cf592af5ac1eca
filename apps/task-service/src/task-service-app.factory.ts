import { NestFactory } from '@nestjs/core';
import type { INestMicroservice, LoggerService } from '@nestjs/common';
import type { TaskServiceEnv } from '@trawl/config';
import { QUEUE_GROUPS } from '@trawl/contracts';
import { natsAuth, natsServerOptions } from '@trawl/messaging';
import { NEST_LOG_LEVELS } from '@trawl/service-runtime';
import type { TrawlMetrics } from '@trawl/telemetry';
import { AppModule } from './app.module.js';
import { CrawlRuntimeService } from './crawl-runtime.service.js';
import { TaskRuntimeService } from './task-runtime.service.js';

export interface TaskServiceAppOptions {
  /** Nest's logger (the service's pino logger); by default Nest's own, at LOG_LEVEL. */
  logger?: LoggerService;
  metrics?: TrawlMetrics;
}

/** The task-service microservice (not yet listening): NATS handlers in the task-service queue group. */
export async function createTaskServiceApp(
  env: TaskServiceEnv,
  options: TaskServiceAppOptions = {},
): Promise<INestMicroservice> {
  const app = await NestFactory.createMicroservice(AppModule.forRoot(env, options.metrics ?? null), {
    ...natsServerOptions(env.NATS_URL, QUEUE_GROUPS.taskService, {
      name: `task-service-${env.INSTANCE_ID}`,
      gracePeriodMs: env.TASK_SHUTDOWN_GRACE_MS,
      auth: natsAuth(env),
      maxInFlight: env.NATS_MAX_IN_FLIGHT,
    }),
    logger: options.logger ?? NEST_LOG_LEVELS[env.LOG_LEVEL],
  });
  return app;
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
