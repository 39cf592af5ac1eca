import type { LevelWithSilent } from 'pino';
import {
  createLogger,
  NestLoggerAdapter,
  startOpsServer,
  TrawlMetrics,
  type Logger,
  type OpsMount,
  type OpsServer,
  type Readiness,
  type Telemetry,
} from '@trawl/telemetry';

/** The variables the runtime reads (a subset of every app's env class). */
export interface ServiceRuntimeEnv {
  LOG_LEVEL: LevelWithSilent;
  INSTANCE_ID: string;
  /** Port of the ops server; 0 or absent: none (the gateway serves its ops routes on its own port). */
  METRICS_PORT?: number;
  /** Address the ops server binds; absent: loopback (127.0.0.1). Containers set 0.0.0.0. */
  OPS_HOST?: string;
}

/** What a started service hands the runtime. */
export interface RunningService {
  /** Readiness for `/health/ready` (ignored without an ops server). */
  ready?: () => Readiness | Promise<Readiness>;
  /** More paths on the ops server (e.g. task-service's queue dashboard). */
  mounts?: readonly OpsMount[];
  /** Stops the service on SIGTERM/SIGINT: stop taking work, let the work in flight finish, close. */
  stop: () => Promise<void>;
  /** The line logged once it runs, with its fields. */
  started: { message: string; fields?: Record<string, unknown> };
}

/** What `start` gets: the service's logger (also as Nest's logger) and metrics. */
export interface ServiceContext {
  logger: Logger;
  nestLogger: NestLoggerAdapter;
  metrics: TrawlMetrics;
}

export interface ServiceRuntimeOptions {
  /** Name in logs, metrics and traces, e.g. `task-service`. */
  service: string;
  env: ServiceRuntimeEnv;
  telemetry: Telemetry;
  /** The service's metrics; a fresh registry when not given. */
  metrics?: TrawlMetrics;
  /** Builds and starts the service. */
  start: (context: ServiceContext) => Promise<RunningService>;
}

export interface ServiceRuntime {
  logger: Logger;
  metrics: TrawlMetrics;
  ops: OpsServer | undefined;
}

/**
 * The one lifecycle of every Trawl process: a pino logger (JSON lines, LOG_LEVEL, `instance`), the service started by
 * `start`, the ops server on OPS_HOST:METRICS_PORT (`/metrics`, `/health/live`, `/health/ready` from `ready`, plus
 * `mounts`; loopback unless OPS_HOST says otherwise),
 * and on SIGTERM or SIGINT (once): the service's `stop` (drain), the ops server closed, telemetry flushed, exit 0.
 * Call it from the app.s `app.bootstrap.ts`; `runNatsService` is it for a NATS microservice.
 */
export async function runService(options: ServiceRuntimeOptions): Promise<ServiceRuntime> {
  const { service, env, telemetry } = options;
  const logger = createLogger({ service, level: env.LOG_LEVEL, bindings: { instance: env.INSTANCE_ID } });
  const metrics = options.metrics ?? new TrawlMetrics({ service });
  const running = await options.start({ logger, nestLogger: new NestLoggerAdapter(logger), metrics });
  const ops =
    (env.METRICS_PORT ?? 0) > 0
      ? await startOpsServer({
          port: env.METRICS_PORT ?? 0,
          ...(env.OPS_HOST ? { host: env.OPS_HOST } : {}),
          registry: metrics.registry,
          ready: async () => (running.ready ? running.ready() : { ok: true }),
          ...(running.mounts ? { mounts: running.mounts } : {}),
        })
      : undefined;
  logger.info(running.started.fields ?? {}, running.started.message);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    await running.stop();
    await ops?.close();
    await telemetry.shutdown();
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
  return { logger, metrics, ops };
}
