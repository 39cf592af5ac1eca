import type { DynamicModule, INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { MicroserviceOptions } from '@nestjs/microservices';
import { natsAuth, natsServerOptions } from '@trawl/messaging';
import type { Logger, OpsServer, Readiness, Telemetry, TrawlMetrics } from '@trawl/telemetry';
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

export interface NatsServiceOptions {
  /** Name in logs, metrics and traces, e.g. `extractor-maps`. */
  service: string;
  /** The queue group its subjects are served in (one replica per message). */
  queue: string;
  env: NatsServiceRuntimeEnv;
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
 * A NATS microservice on the service runtime (`runService`): the Nest app serving its subjects in its queue group
 * (draining shutdown, see `DrainingNatsServer`), ready when NATS is connected and `ready` says so. Call it from the
 * app.s `app.bootstrap.ts`.
 */
export async function runNatsService(options: NatsServiceOptions): Promise<NatsService> {
  const { env } = options;
  let app: INestMicroservice | undefined;
  const runtime = await runService({
    service: options.service,
    env,
    telemetry: options.telemetry,
    ...(options.metrics ? { metrics: options.metrics } : {}),
    start: async ({ nestLogger }) => {
      const servers = [...env.NATS_URL];
      const nest = await NestFactory.createMicroservice<MicroserviceOptions>(options.module, {
        ...natsServerOptions(servers, options.queue, {
          auth: natsAuth(env),
          ...(env.NATS_MAX_IN_FLIGHT !== undefined ? { maxInFlight: env.NATS_MAX_IN_FLIGHT } : {}),
        }),
        logger: nestLogger,
      });
      app = nest;
      await options.beforeListen?.(nest);
      let natsStatus = 'disconnected';
      nest.status.subscribe((status) => (natsStatus = status));
      await nest.listen();
      return {
        ready: () => {
          const own = options.ready?.() ?? { ok: true, details: {} };
          return { ok: natsStatus === 'connected' && own.ok, details: { nats: natsStatus, ...own.details } };
        },
        stop: async () => {
          options.onStop?.();
          await nest.close();
        },
        started: { message: `${options.service} listening on NATS`, fields: { queue: options.queue } },
      };
    },
  });
  if (!app) throw new Error(`${options.service}: the app was not built`);
  return { app, logger: runtime.logger, ops: runtime.ops };
}
