import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bootstrapKeyId, deriveWebhookSecret } from '@trawl/keys';
import {
  freePort,
  startNats,
  startNatsCluster,
  startProcess,
  startRedis,
  startRedisSentinelGroup,
  waitForPort,
  eventually,
  type RedisSentinelGroup,
  type RestartableTestServer,
  type RunningProcess,
  type TestNatsCluster,
} from '@trawl/testing';

export const WORKSPACE_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
export const API_KEY = 'system-e2e-key';
/** The dispatcher's WEBHOOK_SIGNING_SECRET: the master each bootstrap key's own secret is derived from. */
export const MASTER_SIGNING_SECRET = `whsec_${Buffer.from('system-e2e-signing-secret-0123456789').toString('base64')}`;
/** The secret API_KEY's webhooks are signed with (its own, derived from the master: docs/webhooks.md). */
export const SIGNING_SECRET = signingSecretOf(API_KEY);

/** The webhook secret of bootstrap key `key`, as `npm run keys -- bootstrap-secret` prints it. */
export function signingSecretOf(key: string): string {
  return deriveWebhookSecret(MASTER_SIGNING_SECRET, bootstrapKeyId(key));
}

export type ServiceName =
  | 'gateway'
  | 'extractor-scrape'
  | 'extractor-search'
  | 'extractor-maps'
  | 'extractor-retail'
  | 'task-service'
  | 'webhook-dispatcher';

/** What the stack runs NATS and Redis as: by default one nats-server and one redis-server. */
export interface StackInfra {
  /** A JetStream cluster of this many nats-servers; every one of them is in the services' `NATS_URL`. */
  natsNodes?: number;
  /** Redis as a master with replicas watched by Sentinels; the services get `REDIS_SENTINELS`, no `REDIS_URL`. */
  redisSentinel?: { replicas: number; sentinels: number };
}

export interface Stack {
  baseUrl: string;
  natsUrl: string;
  /** The Redis URL the services get; with Sentinels, the master's at start (for the test's own reads only). */
  redisUrl: string;
  /** The NATS cluster, when `natsNodes` was given. */
  natsCluster?: TestNatsCluster;
  /** The Sentinel group, when `redisSentinel` was given. */
  redisGroup?: RedisSentinelGroup;
  services: Map<ServiceName, RunningProcess>;
  /** Where each service answers `/metrics`: its METRICS_PORT (the gateway: its PORT). */
  metricsPorts: Map<ServiceName, number>;
  /** Starts (again) one service with the stack's environment. */
  startService(name: ServiceName, extraEnv?: Record<string, string>): Promise<RunningProcess>;
  /** Restarts nats-server on the same port with the same JetStream store; `whileDown` runs while it is stopped. */
  restartNats(whileDown?: () => Promise<void>): Promise<void>;
  /** Restarts redis-server on the same port with the same data (AOF); `whileDown` runs while it is stopped. */
  restartRedis(whileDown?: () => Promise<void>): Promise<void>;
  stop(): Promise<void>;
}

export function serviceMain(name: ServiceName): string {
  return join(WORKSPACE_ROOT, 'dist', 'apps', name, 'src', 'main.js');
}

export function serviceBuilt(name: ServiceName): boolean {
  return existsSync(serviceMain(name));
}

/**
 * Starts real Redis and NATS (JetStream) on free ports and the given services as separate Node processes from the
 * build output, and waits until the gateway answers. `env` is given to every service.
 */
export async function startStack(
  names: ServiceName[],
  env: Record<string, string> = {},
  infra: StackInfra = {},
): Promise<Stack> {
  for (const n of names) {
    if (!serviceBuilt(n)) throw new Error(`${serviceMain(n)} is missing: run \`npm run build\` first (npm test does)`);
  }
  const natsCluster = infra.natsNodes ? await startNatsCluster({ nodes: infra.natsNodes }) : undefined;
  const redisGroup = infra.redisSentinel ? await startRedisSentinelGroup(infra.redisSentinel) : undefined;
  const nats: RestartableTestServer | undefined = natsCluster ? undefined : await startNats();
  const redis: RestartableTestServer | undefined = redisGroup ? undefined : await startRedis();
  const natsUrl = natsCluster?.url ?? nats?.url ?? '';
  const redisUrl = redisGroup ? `redis://${redisGroup.dataNodes[0].address}` : (redis?.url ?? '');
  const redisEnv: Record<string, string> = redisGroup ? { ...redisGroup.env } : { REDIS_URL: redisUrl };
  const port = await freePort();
  const services = new Map<ServiceName, RunningProcess>();
  const metricsPorts = new Map<ServiceName, number>();
  const baseEnv: Record<string, string> = {
    ...(process.env as Record<string, string>),
    NATS_URL: natsUrl,
    ...redisEnv,
    API_KEYS: API_KEY,
    WEBHOOK_SIGNING_SECRET: MASTER_SIGNING_SECRET,
    LOG_LEVEL: 'warn',
    PORT: String(port),
    HOST: '127.0.0.1',
    ...env,
  };

  const startService = async (name: ServiceName, extraEnv: Record<string, string> = {}) => {
    const metricsPort = await freePort();
    const proc = startProcess(process.execPath, [serviceMain(name)], {
      cwd: WORKSPACE_ROOT,
      env: { ...baseEnv, METRICS_PORT: String(metricsPort), INSTANCE_ID: `${name}-e2e`, ...extraEnv },
    });
    services.set(name, proc);
    metricsPorts.set(name, name === 'gateway' ? port : metricsPort);
    // Every service answers /health/ready on its METRICS_PORT (the gateway on its PORT) once it serves NATS. The bound
    // is a margin for a loaded machine (several processes starting at once on two cores), not a claim.
    if (name !== 'gateway') {
      await eventually(async () => (await fetch(`http://127.0.0.1:${metricsPort}/health/ready`)).ok, 120_000).catch(
        (e: unknown) => {
          throw new Error(`${name} did not become ready: ${String(e)}\n${proc.output().slice(-3000)}`);
        },
      );
    }
    return proc;
  };

  await Promise.all(names.map((n) => startService(n)));
  const stack: Stack = {
    baseUrl: `http://127.0.0.1:${port}/api/openapi/v1`,
    natsUrl,
    redisUrl,
    ...(natsCluster ? { natsCluster } : {}),
    ...(redisGroup ? { redisGroup } : {}),
    services,
    metricsPorts,
    startService,
    restartNats: (whileDown) => (nats ? nats.restart(whileDown) : Promise.reject(new Error('NATS is a cluster'))),
    restartRedis: (whileDown) =>
      redis ? redis.restart(whileDown) : Promise.reject(new Error('Redis is a Sentinel group')),
    async stop() {
      await Promise.all([...services.values()].map((p) => p.stop()));
      await nats?.stop();
      await natsCluster?.stop();
      await redis?.stop();
      await redisGroup?.stop();
    },
  };
  try {
    if (names.includes('gateway')) {
      await waitForPort(port, '127.0.0.1', 60_000, services.get('gateway'));
      // Ready means the gateway reached NATS.
      await eventually(async () => (await fetch(`http://127.0.0.1:${port}/health/ready`)).ok, 60_000);
    }
  } catch (e) {
    const logs = [...services.entries()].map(([n, p]) => `--- ${n}\n${p.output().slice(-3000)}`).join('\n');
    await stack.stop();
    throw new Error(`stack did not start: ${String(e)}\n${logs}`);
  }
  return stack;
}

/** POSTs JSON to the gateway with the test key (or the given headers) and returns status and parsed body. */
export async function callApi(
  stack: Stack,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  headers: Record<string, string> = { 'x-api-key': API_KEY },
): Promise<{ status: number; headers: Headers; body: ApiBody }> {
  const res = await fetch(`${stack.baseUrl}${path}`, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as ApiBody };
}

/** The envelope as a test reads it. */
export interface ApiBody {
  requestId: string;
  code: number;
  errorCode: number;
  message: string;
  timestamp: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary payloads
  data: any;
}
