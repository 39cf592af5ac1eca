import { NestFactory } from '@nestjs/core';
import type { INestApplicationContext, LogLevel } from '@nestjs/common';
import type { WebhookDispatcherEnv } from '@trawl/config';
import { AppModule } from './app.module.js';

const NEST_LOG_LEVELS: Record<WebhookDispatcherEnv['LOG_LEVEL'], LogLevel[] | false> = {
  fatal: ['fatal'],
  error: ['fatal', 'error'],
  warn: ['fatal', 'error', 'warn'],
  info: ['fatal', 'error', 'warn', 'log'],
  debug: ['fatal', 'error', 'warn', 'log', 'debug'],
  trace: ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'],
  silent: false,
};

/** The dispatcher as a Nest application context (no HTTP server, no NATS handlers): started by `init()`. */
export async function createWebhookDispatcherApp(env: WebhookDispatcherEnv): Promise<INestApplicationContext> {
  const app = await NestFactory.createApplicationContext(AppModule.forRoot(env), {
    logger: NEST_LOG_LEVELS[env.LOG_LEVEL],
  });
  app.enableShutdownHooks();
  return app;
}
