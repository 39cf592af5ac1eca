import { Type } from 'class-transformer';
import {
  IsBoolean,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Min,
  ValidatorConstraint,
  Validate,
  type ValidationArguments,
  type ValidatorConstraintInterface,
} from 'class-validator';
import { EnvFlag } from './env-value.transforms.js';

/** The variables that each choose a Redis topology; exactly one may be set. */
export const REDIS_TOPOLOGY_VARIABLES = ['REDIS_URL', 'REDIS_SENTINELS', 'REDIS_CLUSTER_NODES'] as const;

const HOST_PORT = String.raw`(\[[0-9A-Fa-f:.]+\]|[^\s:,[\]]+):\d{1,5}`;
/** Empty, or `host:port,host:port,…` (IPv6 as `[::1]:port`). */
const HOST_PORTS_OR_EMPTY = new RegExp(`^$|^${HOST_PORT}(\\s*,\\s*${HOST_PORT})*$`);

/**
 * Fails on the first topology variable that is set while another one is set too, naming both (so the message
 * appears once, under the first of them).
 */
@ValidatorConstraint({ name: 'oneRedisTopology' })
class OneRedisTopology implements ValidatorConstraintInterface {
  validate(_value: unknown, args: ValidationArguments): boolean {
    const set = this.set(args);
    return set.length < 2 || set[0] !== args.property;
  }

  defaultMessage(args: ValidationArguments): string {
    return `${this.set(args).join(' and ')} are set: set only one Redis topology (standalone, Sentinel or Cluster)`;
  }

  private set(args: ValidationArguments): string[] {
    const env = args.object as Record<string, unknown>;
    return REDIS_TOPOLOGY_VARIABLES.filter((v) => typeof env[v] === 'string' && (env[v] as string).trim() !== '');
  }
}

// A mixin's constructor must take `any[]` (TypeScript's rule for mixin classes).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type EnvClass = new (...args: any[]) => object;

/**
 * Adds the Redis variables to an env class: one of three topologies (`REDIS_URL`, `REDIS_SENTINELS` +
 * `REDIS_SENTINEL_NAME`, `REDIS_CLUSTER_NODES`), the data nodes' credentials and TLS, and the replication
 * acknowledgement of accepted jobs. `@trawl/redis`'s `redisTopologyFromEnv(env)` turns them into a topology.
 */
export function withRedisEnv<TBase extends EnvClass>(Base: TBase) {
  class RedisFields extends Base {
    /** Standalone Redis (for development, or a single managed endpoint): `redis://[user:pass@]host:port[/db]`. */
    @IsString()
    @Matches(/^(rediss?:\/\/\S+)?$/, { message: 'REDIS_URL must be redis://host:port (or rediss://), or empty' })
    @Validate(OneRedisTopology)
    REDIS_URL: string = '';

    /** Redis behind Sentinel: the Sentinels, `host:port,host:port,…`. */
    @IsString()
    @Matches(HOST_PORTS_OR_EMPTY, {
      message: 'REDIS_SENTINELS must be host:port,host:port,… (or empty)',
    })
    @Validate(OneRedisTopology)
    REDIS_SENTINELS: string = '';

    /** The master group name the Sentinels monitor. */
    @IsString()
    @Matches(/^\S+$/, { message: 'REDIS_SENTINEL_NAME must be a name without spaces' })
    REDIS_SENTINEL_NAME: string = 'mymaster';

    /** Password of the Sentinels themselves (not of the data nodes); empty: none. */
    @IsString()
    REDIS_SENTINEL_PASSWORD: string = '';

    /** Redis Cluster: some or all of its nodes, `host:port,host:port,…` (the rest are discovered). */
    @IsString()
    @Matches(HOST_PORTS_OR_EMPTY, {
      message: 'REDIS_CLUSTER_NODES must be host:port,host:port,… (or empty)',
    })
    @Validate(OneRedisTopology)
    REDIS_CLUSTER_NODES: string = '';

    /** ACL user of the data nodes (Sentinel, Cluster; standalone may keep it in REDIS_URL); empty: `default`. */
    @IsString()
    REDIS_USERNAME: string = '';

    /** Password of the data nodes (Sentinel, Cluster; standalone may keep it in REDIS_URL); empty: none. */
    @IsString()
    REDIS_PASSWORD: string = '';

    /** TLS towards Redis (data nodes and Sentinels); `rediss://` turns it on for REDIS_URL. */
    @EnvFlag()
    @IsBoolean({ message: 'REDIS_TLS must be true or false' })
    REDIS_TLS: boolean = false;

    /**
     * Replicas that must hold a call's new jobs before it answers (Redis `WAIT`). Unset: 1 when the master has
     * replicas, 0 on a server without any.
     */
    @IsOptional()
    @Type(() => Number)
    @IsInt({ message: 'REDIS_MIN_REPLICAS_ACK must be a whole number' })
    @Min(0, { message: 'REDIS_MIN_REPLICAS_ACK must be >= 0' })
    REDIS_MIN_REPLICAS_ACK: number | undefined = undefined;

    /** How long a call waits for REDIS_MIN_REPLICAS_ACK replicas before it answers 503, ms. */
    @IsInt({ message: 'REDIS_REPLICAS_ACK_TIMEOUT_MS must be a whole number of ms' })
    @Min(1, { message: 'REDIS_REPLICAS_ACK_TIMEOUT_MS must be >= 1' })
    REDIS_REPLICAS_ACK_TIMEOUT_MS: number = 2000;
  }
  return RedisFields;
}

/** The Redis variables alone (a tool that needs nothing else, such as the keys CLI, extends it). */
export class RedisEnv extends withRedisEnv(class {}) {}

/** True when any Redis topology variable is set. */
export function hasRedisTopology(env: { REDIS_URL: string; REDIS_SENTINELS: string; REDIS_CLUSTER_NODES: string }) {
  return REDIS_TOPOLOGY_VARIABLES.some((v) => env[v].trim() !== '');
}
