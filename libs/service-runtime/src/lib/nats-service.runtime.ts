import type { DynamicModule, INestMicroservice, LoggerService, LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { MicroserviceOptions } from '@nestjs/microservices';
import { DrainingNatsServer, natsAuth, natsServerOptions } from '@trawl/messaging';
import type { Logger, OpsMount, OpsServer, Readiness, Telemetry, TrawlMetrics } from '@trawl/telemetry';
import { runService, type ServiceRuntimeEnv } from './service.runtime.js';

/** The variables every NATS service reads (a subset of each app's env class). */
export interface NatsServiceRuntimeEnv extends ServiceRuntimeEnv {
  NATS_URL: readonly string[];
  METRICS_PORT: number;
  NATS_USER?: string;
  NATS_PASSWORD?: string;
  /** Most requests handled at once by this replica (0: no cap). */
  NATS_MAX_IN_FLIGHT?: number;
}

/** How a NATS microservice is built: its module served in its queue group. */
export interface NatsMicroserviceOptions {
  /** The queue group its subjects are served in (one replica per message). */
  queue: string;
  env: NatsServiceRuntimeEnv;
  /** The app's root module. */
  module: DynamicModule;
  /** Name of its NATS connection (the server's monitoring shows it); the queue group when not given. */
  natsName?: string;
  /** On shutdown, how long the handlers in flight may finish before the connection closes, ms (default 25 s). */
  gracePeriodMs?: number;
  /** Where the server's refused and abandoned requests are counted (`trawl_nats_server_requests_total`). */
  metrics?: TrawlMetrics;
}

export interface NatsServiceOptions extends NatsMicroserviceOptions {
  /** Name in logs, metrics and traces, e.g. `extractor-maps`. */
  service: string;
  telemetry: Telemetry;
  /** The service's metrics; a fresh registry when not given. */
  metrics?: TrawlMetrics;
  /** Runs after the app is built, before it takes requests (e.g. warm a browser). */
  beforeListen?: (app: INestMicroservice) => Promise<void>;
  /** Readiness beyond NATS being connected (e.g. a browser is up). */
  ready?: (app: INestMicroservice) => Readiness;
  /** More paths on the ops server, built once the app listens (e.g. task-service's queue dashboard). */
  mounts?: (app: INestMicroservice, logger: Logger) => Promise<readonly OpsMount[]>;
  /** Runs on SIGTERM/SIGINT before the app closes (e.g. stop sampling timers). */
  onStop?: () => void;
  /** Closes the app on SIGTERM/SIGINT (e.g. stop workers taking jobs while it drains); `app.close()` by default. */
  close?: (app: INestMicroservice) => Promise<void>;
  /** More fields of the line logged once it listens. */
  startedFields?: Record<string, unknown>;
}

export interface NatsService {
  app: INestMicroservice;
  logger: Logger;
  ops: OpsServer | undefined;
}

/**
 * The Nest microservice of a NATS service, not yet listening: `module` served in its queue group by a
 * `DrainingNatsServer` (NATS credentials and NATS_MAX_IN_FLIGHT from `env`). `runNatsService` builds its app with it;
 * in-process tests may call it directly.
 */
export async function createNatsMicroservice(
  options: NatsMicroserviceOptions & { logger: LoggerService | LogLevel[] | false },
): Promise<INestMicroservice> {
  const { env } = options;
  const server = natsServerOptions([...env.NATS_URL], options.queue, {
    auth: natsAuth(env),
    ...(options.natsName !== undefined ? { name: options.natsName } : {}),
    ...(options.gracePeriodMs !== undefined ? { gracePeriodMs: options.gracePeriodMs } : {}),
    ...(env.NATS_MAX_IN_FLIGHT !== undefined ? { maxInFlight: env.NATS_MAX_IN_FLIGHT } : {}),
  });
  const strategy = 'strategy' in server ? server.strategy : undefined;
  if (options.metrics && strategy instanceof DrainingNatsServer) {
    options.metrics.natsServer.observe(() => ({ refusedBusy: strategy.refusedBusy, abandoned: strategy.abandoned }));
  }
  return NestFactory.createMicroservice<MicroserviceOptions>(options.module, { ...server, logger: options.logger });
}

/**
 * A NATS microservice on the service runtime (`runService`): the Nest app serving its subjects in its queue group
 * (draining shutdown, see `DrainingNatsServer`; `close` may stop other work first), ready when NATS is connected and
 * `ready` says so, with `mounts` on the ops server. Call it from the app's `app.bootstrap.ts`.
 */
export async function runNatsService(options: NatsServiceOptions): Promise<NatsService> {
  const { env } = options;
  let app: INestMicroservice | undefined;
  const runtime = await runService({
    service: options.service,
    env,
    telemetry: options.telemetry,
    ...(options.metrics ? { metrics: options.metrics } : {}),
    start: async ({ logger, nestLogger, metrics }) => {
      const nest = await createNatsMicroservice({ ...options, metrics, logger: nestLogger });
      app = nest;
      await options.beforeListen?.(nest);
      let natsStatus = 'disconnected';
      nest.status.subscribe((status) => (natsStatus = status));
      await nest.listen();
      const mounts = (await options.mounts?.(nest, logger)) ?? [];
      return {
        ready: () => {
          const own = options.ready?.(nest) ?? { ok: true, details: {} };
          return { ok: natsStatus === 'connected' && own.ok, details: { nats: natsStatus, ...own.details } };
        },
        ...(mounts.length > 0 ? { mounts } : {}),
        stop: async () => {
          options.onStop?.();
          await (options.close ? options.close(nest) : nest.close());
        },
        started: {
          message: `${options.service} listening on NATS`,
          fields: { queue: options.queue, ...options.startedFields },
        },
      };
    },
  });
  if (!app) throw new Error(`${options.service}: the app was not built`);
  return { app, logger: runtime.logger, ops: runtime.ops };
}
