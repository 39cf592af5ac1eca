import type { DynamicModule, INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { LevelWithSilent } from 'pino';
import type { MicroserviceOptions } from '@nestjs/microservices';
import {
  createLogger,
  NestLoggerAdapter,
  startOpsServer,
  TrawlMetrics,
  type Logger,
  type OpsServer,
  type Readiness,
  type Telemetry,
} from '@trawl/telemetry';
import { natsAuth } from './nats-connection.js';
import { natsServerOptions } from './nats-server.options.js';

/** The variables every NATS service reads (a subset of each app's env class). */
export interface NatsServiceEnv {
  NATS_URL: string;
  LOG_LEVEL: LevelWithSilent;
  INSTANCE_ID: string;
  METRICS_PORT: number;
  NATS_USER?: string;
  NATS_PASSWORD?: string;
}

export interface NatsServiceOptions {
  /** Name in logs, metrics and traces, e.g. `extractor-maps`. */
  service: string;
  /** The queue group its subjects are served in (one replica per message). */
  queue: string;
  env: NatsServiceEnv;
  telemetry: Telemetry;
  /** The app's root module. */
  module: DynamicModule;
  /** The service's metrics; a fresh registry when not given. */
  metrics?: TrawlMetrics;
  /** Runs after the app is built, before it takes requests (e.g. warm a browser). */
  beforeListen?: (app: INestMicroservice) => Promise<void>;
  /** Readiness beyond NATS being connected (e.g. a browser is up). */
  ready?: () => Readiness;
  /** Runs on SIGTERM/SIGINT before the app closes (e.g. stop sampling timers). */
  onStop?: () => void;
}

export interface NatsService {
  app: INestMicroservice;
  logger: Logger;
  ops: OpsServer | undefined;
}

/**
 * The composition every NATS microservice shares: a pino logger, the Nest app serving its subjects in its queue group
 * (draining shutdown, see `DrainingNatsServer`), the ops server on `METRICS_PORT` (`/metrics`, `/health/live`,
 * `/health/ready`: NATS connected plus `ready`), and a shutdown on SIGTERM/SIGINT that stops taking requests, lets
 * the ones in flight reply, closes the ops server and flushes telemetry. Call it from the app's `bootstrap.ts`.
 */
export async function runNatsService(options: NatsServiceOptions): Promise<NatsService> {
  const { service, env, telemetry } = options;
  const logger = createLogger({ service, level: env.LOG_LEVEL, bindings: { instance: env.INSTANCE_ID } });
  const servers = env.NATS_URL.split(',').map((s) => s.trim());
  const app = await NestFactory.createMicroservice<MicroserviceOptions>(options.module, {
    ...natsServerOptions(servers, options.queue, { auth: natsAuth(env) }),
    logger: new NestLoggerAdapter(logger),
  });
  await options.beforeListen?.(app);
  let natsStatus = 'disconnected';
  app.status.subscribe((status) => (natsStatus = status));
  await app.listen();

  const metrics = options.metrics ?? new TrawlMetrics({ service });
  const ops =
    env.METRICS_PORT > 0
      ? await startOpsServer({
          port: env.METRICS_PORT,
          registry: metrics.registry,
          ready: () => {
            const own = options.ready?.() ?? { ok: true, details: {} };
            return Promise.resolve({
              ok: natsStatus === 'connected' && own.ok,
              details: { nats: natsStatus, ...own.details },
            });
          },
        })
      : undefined;
  logger.info({ queue: options.queue }, `${service} listening on NATS`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    options.onStop?.();
    await app.close();
    await ops?.close();
    await telemetry.shutdown();
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
  return { app, logger, ops };
}
