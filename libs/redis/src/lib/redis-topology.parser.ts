/** One `host:port` of a Sentinel or of a Cluster node. */
export interface RedisHostPort {
  host: string;
  port: number;
}

/** Credentials and TLS of the data nodes (the Redis servers holding the keys). */
export interface RedisDataAuth {
  username?: string;
  password?: string;
  /** TLS towards the data nodes (and, for Sentinel, towards the Sentinels too). */
  tls: boolean;
}

/** A single Redis server (`REDIS_URL`): for development, or a managed single-endpoint offering. */
export interface StandaloneRedisTopology extends RedisDataAuth {
  kind: 'standalone';
  /** `redis://` or `rediss://` URL; credentials in it win over `username`/`password`. */
  url: string;
}

/** A master with replicas watched by Sentinels (`REDIS_SENTINELS` + `REDIS_SENTINEL_NAME`). */
export interface SentinelRedisTopology extends RedisDataAuth {
  kind: 'sentinel';
  sentinels: RedisHostPort[];
  /** The master group name the Sentinels monitor (`mymaster` unless told). */
  name: string;
  /** Password of the Sentinels themselves (not of the data nodes). */
  sentinelPassword?: string;
}

/** A Redis Cluster (`REDIS_CLUSTER_NODES`): some or all of its nodes; the rest are discovered. */
export interface ClusterRedisTopology extends RedisDataAuth {
  kind: 'cluster';
  nodes: RedisHostPort[];
}

/** Where Redis is and how to reach it: exactly one of three topologies. */
export type RedisTopology = StandaloneRedisTopology | SentinelRedisTopology | ClusterRedisTopology;

/**
 * The Redis variables as `@trawl/config` validates them (see `RedisEnv` there). Only the names matter here, so a test
 * may pass a plain object.
 */
export interface RedisTopologyEnv {
  REDIS_URL?: string;
  REDIS_SENTINELS?: string;
  REDIS_SENTINEL_NAME?: string;
  REDIS_SENTINEL_PASSWORD?: string;
  REDIS_CLUSTER_NODES?: string;
  REDIS_USERNAME?: string;
  REDIS_PASSWORD?: string;
  /** `true`/`false` as text (the environment) or already a boolean. */
  REDIS_TLS?: string | boolean;
}

/** The variables that each choose a topology; exactly one may be set. */
export const REDIS_TOPOLOGY_VARIABLES = ['REDIS_URL', 'REDIS_SENTINELS', 'REDIS_CLUSTER_NODES'] as const;

/** A Redis configuration that cannot be used; the message names the variable(s). */
export class RedisTopologyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RedisTopologyError';
  }
}

const HOST_PORT = /^(?:\[([0-9A-Fa-f:.]+)\]|([^\s:,[\]]+)):(\d{1,5})$/;

/**
 * Parses `host:port,host:port,…` (IPv6 as `[::1]:port`). Throws naming `variable` when an item is not a host:port.
 */
export function parseRedisHostPorts(value: string, variable: string): RedisHostPort[] {
  const items = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (items.length === 0) throw new RedisTopologyError(`${variable} must list at least one host:port`);
  return items.map((item) => {
    const m = HOST_PORT.exec(item);
    const port = m ? Number(m[3]) : 0;
    if (!m || port < 1 || port > 65535) {
      throw new RedisTopologyError(`${variable} must be host:port,host:port,… ("${item}" is not a host:port)`);
    }
    return { host: m[1] ?? m[2], port };
  });
}

/** True for the text values `REDIS_TLS` accepts as on. */
function tlsOn(value: string | boolean | undefined): boolean {
  if (typeof value === 'boolean') return value;
  const v = (value ?? '').trim().toLowerCase();
  if (v === '' || v === 'false') return false;
  if (v === 'true') return true;
  throw new RedisTopologyError('REDIS_TLS must be true or false');
}

function optional(value: string | undefined): string | undefined {
  const v = value?.trim();
  return v ? v : undefined;
}

/**
 * The topology the Redis variables name, or `defaultUrl`'s standalone server when none is set (undefined when no
 * default is given either: the service runs without Redis). More than one topology set is an error naming them.
 */
export function redisTopologyFromEnv(
  env: RedisTopologyEnv,
  options: { defaultUrl?: string } = {},
): RedisTopology | undefined {
  const set = REDIS_TOPOLOGY_VARIABLES.filter((v) => optional(env[v]) !== undefined);
  if (set.length > 1) {
    throw new RedisTopologyError(
      `${set.join(' and ')} are ${set.length === 2 ? 'both' : 'all'} set: choose one Redis topology`,
    );
  }
  const tls = tlsOn(env.REDIS_TLS);
  const auth = { username: optional(env.REDIS_USERNAME), password: optional(env.REDIS_PASSWORD), tls };
  const sentinels = optional(env.REDIS_SENTINELS);
  if (sentinels) {
    return {
      kind: 'sentinel',
      sentinels: parseRedisHostPorts(sentinels, 'REDIS_SENTINELS'),
      name: optional(env.REDIS_SENTINEL_NAME) ?? 'mymaster',
      sentinelPassword: optional(env.REDIS_SENTINEL_PASSWORD),
      ...auth,
    };
  }
  const nodes = optional(env.REDIS_CLUSTER_NODES);
  if (nodes) return { kind: 'cluster', nodes: parseRedisHostPorts(nodes, 'REDIS_CLUSTER_NODES'), ...auth };
  const url = optional(env.REDIS_URL) ?? options.defaultUrl;
  if (!url) return undefined;
  if (!/^rediss?:\/\/\S+$/.test(url))
    throw new RedisTopologyError('REDIS_URL must be redis://host:port (or rediss://)');
  return { kind: 'standalone', url, ...auth, tls: tls || url.startsWith('rediss://') };
}

/** The topology in one line for logs and errors, without any password. */
export function describeRedisTopology(topology: RedisTopology): string {
  const list = (hps: RedisHostPort[]) => hps.map((h) => `${h.host}:${h.port}`).join(',');
  const tls = topology.tls ? ' (TLS)' : '';
  switch (topology.kind) {
    case 'standalone': {
      const u = new URL(topology.url);
      return `standalone ${u.protocol}//${u.host}${u.pathname === '/' ? '' : u.pathname}${tls}`;
    }
    case 'sentinel':
      return `sentinel ${topology.name} via ${list(topology.sentinels)}${tls}`;
    case 'cluster':
      return `cluster via ${list(topology.nodes)}${tls}`;
  }
}

/** A standalone server's topology from its URL (`rediss://` turns TLS on): tests, tools, the default. */
export function standaloneRedisTopology(url: string): StandaloneRedisTopology {
  return { kind: 'standalone', url, tls: url.startsWith('rediss://') };
}
