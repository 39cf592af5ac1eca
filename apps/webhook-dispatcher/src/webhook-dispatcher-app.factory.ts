import { NestFactory } from '@nestjs/core';
import type { INestApplicationContext, LoggerService } from '@nestjs/common';
import type { WebhookDispatcherEnv } from '@trawl/config';
import { NEST_LOG_LEVELS } from '@trawl/service-runtime';
import type { TrawlMetrics } from '@trawl/telemetry';
import { AppModule } from './app.module.js';

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
