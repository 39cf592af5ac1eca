import { NestFactory } from '@nestjs/core';
import type { INestApplicationContext, LoggerService, LogLevel } from '@nestjs/common';
import type { WebhookDispatcherEnv } from '@trawl/config';
import type { TrawlMetrics } from '@trawl/telemetry';
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

export interface WebhookDispatcherAppOptions {
  /** Nest's logger (the service's pino logger); by default Nest's own, at LOG_LEVEL. */
  logger?: LoggerService;
  metrics?: TrawlMetrics;
}

/** The dispatcher as a Nest application context (no HTTP server, no NATS handlers): started by `init()`. */
export function createWebhookDispatcherApp(
  env: WebhookDispatcherEnv,
  options: WebhookDispatcherAppOptions = {},
): Promise<INestApplicationContext> {
  return NestFactory.createApplicationContext(AppModule.forRoot(env, options.metrics ?? null), {
    logger: options.logger ?? NEST_LOG_LEVELS[env.LOG_LEVEL],
  });
}
