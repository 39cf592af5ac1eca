import type { IScaledObject } from '@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject';
import type { ITriggerAuthentication } from '@kubernetes-models/keda/keda.sh/v1alpha1/TriggerAuthentication';
import type { QueueName } from '@trawl/contracts';
import type { IEnvVar } from 'kubernetes-models/v1/EnvVar';
import { waitingKeys } from './queue-keys.util.js';
import type { ServiceName, TrawlValues } from './trawl-values.reader.js';

/** `extractor-scrape` → `EXTRACTOR_SCRAPE`, for Secret keys and variables named after a service. */
export const envSuffix = (name: ServiceName | RedisInfraUser): string => name.toUpperCase().replace(/-/g, '_');

/** Redis users that are not a service: KEDA's reader, the replicas' and the Sentinels' (ACL template). */
export type RedisInfraUser = 'keda' | 'replication' | 'sentinel';

/** Name of a service's (or KEDA's, the replicas', the Sentinels') Redis ACL user. */
export const redisUser = (v: TrawlValues, name: ServiceName | RedisInfraUser): string => `${v.release}-${name}`;

function secretEnv(v: TrawlValues, key: string, optional: boolean, name = key): IEnvVar {
  return { name, valueFrom: { secretKeyRef: { name: v.secrets.name, key, ...(optional ? { optional: true } : {}) } } };
}

/**
 * The Redis variables of a service that uses Redis, for the values' topology (names: libs/config, `@trawl/redis`):
 * - standalone: REDIS_URL (its ACL user in the Secret key REDIS_URL_<SERVICE> with `auth.redis`; else the shared
 *   URL from the Secret or the values);
 * - sentinel: REDIS_SENTINELS, REDIS_SENTINEL_NAME, REDIS_SENTINEL_PASSWORD when the Sentinels ask for one;
 * - cluster: REDIS_CLUSTER_NODES;
 * and for both: REDIS_USERNAME (its ACL user) with REDIS_PASSWORD from REDIS_PASSWORD_<SERVICE> under `auth.redis`,
 * else REDIS_PASSWORD from the Secret key REDIS_PASSWORD when present; REDIS_TLS; the replica acknowledgement.
 */
export function redisEnv(v: TrawlValues, service: ServiceName): IEnvVar[] {
  const r = v.redis;
  const env: IEnvVar[] = [];
  if (r.topology === 'standalone') {
    if (v.auth.redis) env.push(secretEnv(v, `REDIS_URL_${envSuffix(service)}`, false, 'REDIS_URL'));
    else if (v.secrets.redisUrlFromSecret) env.push(secretEnv(v, 'REDIS_URL', false));
    else env.push({ name: 'REDIS_URL', value: v.config.redisUrl });
  } else {
    if (r.topology === 'sentinel') {
      env.push(
        { name: 'REDIS_SENTINELS', value: (r.sentinels ?? []).join(',') },
        { name: 'REDIS_SENTINEL_NAME', value: r.sentinelName ?? 'mymaster' },
      );
      if (r.sentinelPassword) env.push(secretEnv(v, 'REDIS_SENTINEL_PASSWORD', false));
    } else {
      env.push({ name: 'REDIS_CLUSTER_NODES', value: (r.clusterNodes ?? []).join(',') });
    }
    if (v.auth.redis) {
      env.push(
        { name: 'REDIS_USERNAME', value: redisUser(v, service) },
        secretEnv(v, `REDIS_PASSWORD_${envSuffix(service)}`, false, 'REDIS_PASSWORD'),
      );
    } else {
      // A Redis without a password (a private network) leaves the key out of the Secret.
      env.push(secretEnv(v, 'REDIS_PASSWORD', true));
    }
    if (r.tls) env.push({ name: 'REDIS_TLS', value: 'true' });
  }
  if (r.minReplicasAck !== undefined) env.push({ name: 'REDIS_MIN_REPLICAS_ACK', value: String(r.minReplicasAck) });
  if (r.replicasAckTimeoutMs !== undefined)
    env.push({ name: 'REDIS_REPLICAS_ACK_TIMEOUT_MS', value: String(r.replicasAckTimeoutMs) });
  return env;
}

/** The Secret keys these values render for Redis (with `secrets.create`). */
export function redisSecretData(v: TrawlValues): Record<string, string> {
  const s = v.secrets;
  const perService = (values: Partial<Record<ServiceName, string>> | undefined, key: string) =>
    Object.fromEntries(
      Object.entries(values ?? {}).map(([name, value]) => [`${key}_${envSuffix(name as ServiceName)}`, value]),
    );
  if (v.redis.topology === 'standalone') {
    return {
      ...(s.redisUrlFromSecret ? { REDIS_URL: s.redisUrl ?? '' } : {}),
      ...perService(s.redisUrls, 'REDIS_URL'),
    };
  }
  return {
    ...(s.redisPassword ? { REDIS_PASSWORD: s.redisPassword } : {}),
    ...(v.redis.topology === 'sentinel' && v.redis.sentinelPassword
      ? { REDIS_SENTINEL_PASSWORD: s.redisSentinelPassword ?? '' }
      : {}),
    ...perService(s.redisPasswords, 'REDIS_PASSWORD'),
  };
}

/**
 * KEDA's credentials for the list triggers: its own read-only ACL user with `auth.redis`, else the Redis password
 * Secret named in the values; plus the Sentinels' password. Undefined when Redis asks for none.
 */
export function redisTriggerAuthentication(
  v: TrawlValues,
  metadata: ITriggerAuthentication['metadata'],
): ITriggerAuthentication | undefined {
  const refs: NonNullable<ITriggerAuthentication['spec']['secretTargetRef']> = [];
  if (v.auth.redis) {
    refs.push(
      { parameter: 'username', name: v.secrets.name, key: 'REDIS_USERNAME_KEDA' },
      { parameter: 'password', name: v.secrets.name, key: 'REDIS_PASSWORD_KEDA' },
    );
  } else if (v.redis.passwordSecret?.name) {
    const ps = v.redis.passwordSecret;
    refs.push({ parameter: 'password', name: ps.name ?? '', key: ps.key ?? 'redis-password' });
  }
  if (v.redis.topology === 'sentinel' && v.redis.sentinelPassword)
    refs.push({ parameter: 'sentinelPassword', name: v.secrets.name, key: 'REDIS_SENTINEL_PASSWORD' });
  if (refs.length === 0) return undefined;
  return { apiVersion: 'keda.sh/v1alpha1', kind: 'TriggerAuthentication', metadata, spec: { secretTargetRef: refs } };
}

type Trigger = IScaledObject['spec']['triggers'][number];

/**
 * The KEDA triggers on a queue's waiting jobs, with the scaler of the topology: `redis` (standalone),
 * `redis-sentinel` (asks the Sentinels for the master) or `redis-cluster` (finds the key's slot). Two a queue: the
 * list of jobs without a priority and the sorted set of prioritized ones (a key's jobs under fair share), so a
 * service scaled to zero wakes for either.
 */
export function redisListTriggers(
  v: TrawlValues,
  queue: QueueName,
  listLength: string,
  authenticationName: string | undefined,
): Trigger[] {
  const keys = waitingKeys(queue);
  return [
    redisKeyTrigger(v, `queue-${queue}`, keys.wait, listLength, authenticationName),
    redisKeyTrigger(v, `queue-${queue}-prioritized`, keys.prioritized, listLength, authenticationName),
  ];
}

function redisKeyTrigger(
  v: TrawlValues,
  name: string,
  key: string,
  listLength: string,
  authenticationName: string | undefined,
): Trigger {
  const r = v.redis;
  const list = {
    listName: key,
    listLength,
    // 0: one waiting job wakes a service scaled to zero (minReplicas 0).
    activationListLength: '0',
    ...(r.tls ? { enableTLS: 'true' } : {}),
  };
  const where: Record<string, string> =
    r.topology === 'sentinel'
      ? { addresses: (r.sentinels ?? []).join(','), sentinelMaster: r.sentinelName ?? 'mymaster' }
      : r.topology === 'cluster'
        ? { addresses: (r.clusterNodes ?? []).join(',') }
        : { address: r.address ?? '' };
  const type = r.topology === 'sentinel' ? 'redis-sentinel' : r.topology === 'cluster' ? 'redis-cluster' : 'redis';
  return {
    type,
    name,
    metadata: { ...where, ...list },
    ...(authenticationName ? { authenticationRef: { name: authenticationName } } : {}),
  };
}

/** The TCP ports the Redis-using services reach: the data port, and every Sentinel's or cluster node's. */
export function redisPorts(v: TrawlValues): number[] {
  const r = v.redis;
  const listed = r.topology === 'sentinel' ? r.sentinels : r.topology === 'cluster' ? r.clusterNodes : [r.address];
  const ports = (listed ?? []).flatMap((a) => (a ? [Number(a.slice(a.lastIndexOf(':') + 1))] : []));
  return [...new Set([v.networkPolicy.redis.port, ...ports])].sort((a, b) => a - b);
}
