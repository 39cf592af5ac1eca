import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import type { RedisTopology } from './redis-topology.parser.js';
import { SteadyRedis } from './steady-redis.client.js';

/** A client of any topology: `Redis` (standalone, Sentinel) or `Cluster`. Both speak the same commands. */
export type RedisClient = Redis | Cluster;

/**
 * What a connection is for, which sets how a command behaves while Redis is away:
 * - `command`: plain commands of a request (key store, limits, marks): fail after 2 retries, the caller decides;
 * - `queue`: BullMQ producers (`Queue`, `FlowProducer`): a few retries, then the call fails (an API call should
 *   answer 503, not hang);
 * - `blocking`: BullMQ workers and `QueueEvents`: `maxRetriesPerRequest: null`, so a blocking command waits for Redis
 *   to come back instead of failing (BullMQ requires it);
 * - `cache`: a cache that must never hold a request up: one try, no offline queue, commands time out after 1 s.
 */
export type RedisRole = 'command' | 'blocking' | 'queue' | 'cache';

/** Where a client reports its connection trouble; a pino logger fits. */
export interface RedisLogger {
  warn(fields: Record<string, unknown>, message: string): void;
  info(fields: Record<string, unknown>, message: string): void;
}

export interface CreateRedisClientOptions {
  /** Connection name (`CLIENT SETNAME`, visible in `CLIENT LIST`) and the `redis` field of its log lines. */
  name: string;
  role: RedisRole;
  /** Defaults to one JSON line on stderr per event. */
  logger?: RedisLogger;
  /** Connect on the first command instead of at once. */
  lazyConnect?: boolean;
}

const RETRIES: Record<RedisRole, number | null> = { command: 2, queue: 3, blocking: null, cache: 1 };

/**
 * Delay before reconnect attempt `times`: BullMQ's production guide's exponential backoff (at least 1 s), capped at
 * 10 s so a returning (or newly promoted) master is found soon. Never gives up.
 */
export function redisRetryDelay(times: number): number {
  return Math.max(Math.min(Math.exp(times), 10_000), 1_000);
}

/**
 * Errors after which the connection is dropped and opened again, and the failed command sent again (ioredis's `2`):
 * - `READONLY`: the node we are connected to was demoted to a replica (a failover); reconnecting finds the master;
 * - `UNBLOCKED … (master -> replica?)`: Redis ended a blocking command because its node changed role;
 * - `LOADING`: the server is still loading its data after a restart.
 */
export function redisReconnectOnError(error: Error): 2 | false {
  const m = error.message;
  return m.startsWith('READONLY') || m.startsWith('UNBLOCKED') || m.startsWith('LOADING') ? 2 : false;
}

const stderrLogger: RedisLogger = {
  warn: (fields, message) => process.stderr.write(`${JSON.stringify({ level: 'warn', ...fields, msg: message })}\n`),
  info: (fields, message) => process.stderr.write(`${JSON.stringify({ level: 'info', ...fields, msg: message })}\n`),
};

/**
 * Gives `client` its error listeners, so no error is ever "Unhandled": the first error of an outage, and each
 * different one after it, is logged once (not once per reconnect attempt); `ready` after an outage is logged too.
 */
export function watchRedisErrors(client: RedisClient, name: string, logger: RedisLogger = stderrLogger): void {
  let lastMessage: string | undefined;
  let suppressed = 0;
  const onError = (error: Error, node?: string) => {
    const message = error.message || String(error);
    if (message === lastMessage) {
      suppressed += 1;
      return;
    }
    lastMessage = message;
    logger.warn({ redis: name, ...(node ? { node } : {}), err: message }, 'redis connection error (reconnecting)');
  };
  client.on('error', (error: Error) => onError(error));
  if (client instanceof Cluster) {
    client.on('node error', (error: Error, address?: string) => onError(error, address));
  }
  client.on('ready', () => {
    if (lastMessage === undefined) return;
    logger.info({ redis: name, repeatedErrors: suppressed }, 'redis connection ready again');
    lastMessage = undefined;
    suppressed = 0;
  });
}

/**
 * The one place a Redis client is built. Every client gets: its connection name, error listeners
 * (`watchRedisErrors`), reconnect for ever with backoff, `READONLY`/`UNBLOCKED` handling (`redisReconnectOnError`),
 * the retry policy of its role, and for Sentinel the failover detector (it follows `+switch-master` at once instead
 * of waiting for the old master's connection to fail). A Cluster only ever reads from masters.
 */
export function createRedisClient(topology: RedisTopology, options: CreateRedisClientOptions): RedisClient {
  const common = {
    connectionName: options.name,
    maxRetriesPerRequest: RETRIES[options.role],
    reconnectOnError: redisReconnectOnError,
    lazyConnect: options.lazyConnect ?? false,
    ...(options.role === 'cache' ? { enableOfflineQueue: false, commandTimeout: 1000 } : {}),
    ...(topology.username ? { username: topology.username } : {}),
    ...(topology.password ? { password: topology.password } : {}),
    ...(topology.tls ? { tls: {} } : {}),
  } satisfies RedisOptions;
  let client: RedisClient;
  switch (topology.kind) {
    case 'standalone':
      // Credentials and rediss:// in the URL win over the separate variables.
      client = new SteadyRedis(topology.url, { ...common, retryStrategy: redisRetryDelay });
      break;
    case 'sentinel':
      client = new SteadyRedis({
        ...common,
        sentinels: topology.sentinels,
        name: topology.name,
        role: 'master',
        retryStrategy: redisRetryDelay,
        sentinelRetryStrategy: (times: number) => Math.min(times * 200, 2_000),
        failoverDetector: true,
        ...(topology.sentinelPassword ? { sentinelPassword: topology.sentinelPassword } : {}),
        ...(topology.tls ? { enableTLSForSentinelMode: true, sentinelTLS: {} } : {}),
      });
      break;
    case 'cluster': {
      const clusterOptions: ClusterOptions = {
        redisOptions: common,
        lazyConnect: common.lazyConnect,
        scaleReads: 'master',
        clusterRetryStrategy: redisRetryDelay,
        slotsRefreshTimeout: 2_000,
        // Managed clusters with TLS present certificates for their own names: keep the name, not its address.
        ...(topology.tls ? { dnsLookup: (address, callback) => callback(null, address) } : {}),
      };
      client = new Cluster(topology.nodes, clusterOptions);
      break;
    }
  }
  watchRedisErrors(client, options.name, options.logger);
  return client;
}

/**
 * A second connection like `client` (same topology and options) for another role and name: a subscriber, a blocking
 * reader. It gets its own error listeners.
 */
export function duplicateRedisClient(client: RedisClient, options: CreateRedisClientOptions): RedisClient {
  const own = { connectionName: options.name, maxRetriesPerRequest: RETRIES[options.role] };
  const copy =
    client instanceof Cluster
      ? client.duplicate(undefined, { redisOptions: { ...client.options.redisOptions, ...own } })
      : client.duplicate(own);
  watchRedisErrors(copy, options.name, options.logger);
  return copy;
}
