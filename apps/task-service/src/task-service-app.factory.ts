import { NestFactory } from '@nestjs/core';
import type { INestMicroservice, LogLevel } from '@nestjs/common';
import { csv, type TaskServiceEnv } from '@trawl/config';
import { QUEUE_GROUPS } from '@trawl/contracts';
import { natsServerOptions } from '@trawl/messaging';
import { AppModule } from './app.module.js';

const NEST_LOG_LEVELS: Record<TaskServiceEnv['LOG_LEVEL'], LogLevel[] | false> = {
  fatal: ['fatal'],
  error: ['fatal', 'error'],
  warn: ['fatal', 'error', 'warn'],
  info: ['fatal', 'error', 'warn', 'log'],
  debug: ['fatal', 'error', 'warn', 'log', 'debug'],
  trace: ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'],
  silent: false,
};

/** The task-service microservice (not yet listening): NATS handlers in the task-service queue group. */
export async function createTaskServiceApp(env: TaskServiceEnv): Promise<INestMicroservice> {
  const app = await NestFactory.createMicroservice(AppModule.forRoot(env), {
    ...natsServerOptions(csv(env.NATS_URL), QUEUE_GROUPS.taskService, {
      name: `task-service-${env.INSTANCE_ID || process.pid}`,
      gracePeriodMs: env.TASK_SHUTDOWN_GRACE_MS,
    }),
    logger: NEST_LOG_LEVELS[env.LOG_LEVEL],
  });
  app.enableShutdownHooks();
  return app;
}
