import { Cluster } from 'ioredis';
import { QUEUES, type QueueName } from '@trawl/contracts';
import type { RedisClient } from '@trawl/redis';
import {
  IDEMPOTENCY_KEYS,
  LEGACY_QUEUE_PREFIX,
  outstandingSetKey,
  prefixOfJobId,
  PUBLISHED_OUTCOMES_KEY,
  queuePrefix,
} from './task-redis-keys.constants.js';

/** What `migrateLegacyQueueKeys` moved. */
export interface LegacyQueueMigration {
  /** BullMQ keys moved from `bull:<queue>:…` to `bull:{<tag>}:<queue>:…` (renamed, or merged into existing ones). */
  queueKeys: number;
  /** Job ids moved from `bull:trawl:outstanding:<key>` into the per-prefix outstanding sets. */
  outstandingIds: number;
  /** Marks moved from `bull:trawl:outcomes:published`. */
  publishedMarks: number;
}

const LEGACY_OUTSTANDING = `${LEGACY_QUEUE_PREFIX}:trawl:outstanding:`;
const LEGACY_PUBLISHED = `${LEGACY_QUEUE_PREFIX}:trawl:outcomes:published`;
const LEGACY_IDEMPOTENCY = `${LEGACY_QUEUE_PREFIX}:trawl:idempotency:`;

/** `bull:<queue>` → `bull:{<tag>}:<queue>` wherever a value names a legacy queue key (parent keys, dependencies). */
function rewriteQueueKeys(value: string): string {
  let out = value;
  for (const name of Object.values(QUEUES)) {
    out = out.replace(new RegExp(`${LEGACY_QUEUE_PREFIX}:${name}(?=[:"]|$)`, 'g'), `${queuePrefix(name)}:${name}`);
  }
  return out;
}

async function scanAll(redis: RedisClient, pattern: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    keys.push(...batch);
    cursor = next;
  } while (cursor !== '0');
  return keys;
}

/** Moves one key to its new name: RENAME when the new one does not exist, else merges by type and deletes the old. */
async function moveKey(redis: RedisClient, from: string, to: string): Promise<void> {
  if ((await redis.renamenx(from, to)) === 1) return;
  const type = await redis.type(from);
  if (type === 'list') {
    const items = await redis.lrange(from, 0, -1);
    if (items.length > 0) await redis.rpush(to, ...items);
  } else if (type === 'zset') {
    await redis.zunionstore(to, 2, to, from, 'AGGREGATE', 'MIN');
  } else if (type === 'set') {
    await redis.sunionstore(to, to, from);
  } else if (type === 'hash') {
    for (const [field, value] of Object.entries(await redis.hgetall(from))) await redis.hsetnx(to, field, value);
  } else if (type === 'string') {
    // Counters (`id`, `pc`): keep the larger, so no id or priority counter goes back.
    const [a, b] = await Promise.all([redis.get(from), redis.get(to)]);
    if (Number(a) > Number(b)) await redis.set(to, a as string);
  }
  // A stream (`events`) of the old layout is history only: dropped with the key.
  await redis.del(from);
}

/** Rewrites the legacy queue keys named inside a moved key (a job's parent, a parent's children). */
async function rewriteReferences(redis: RedisClient, key: string): Promise<void> {
  const type = await redis.type(key);
  if (type === 'hash' && !/:(processed|failed|unsuccessful)$/.test(key)) {
    const [parentKey, parent] = await redis.hmget(key, 'parentKey', 'parent');
    if (parentKey) await redis.hset(key, 'parentKey', rewriteQueueKeys(parentKey));
    if (parent) await redis.hset(key, 'parent', rewriteQueueKeys(parent));
  } else if (type === 'hash') {
    const entries = Object.entries(await redis.hgetall(key));
    const renamed = entries.filter(([field]) => rewriteQueueKeys(field) !== field);
    for (const [field, value] of renamed) await redis.hset(key, rewriteQueueKeys(field), value);
    if (renamed.length > 0) await redis.hdel(key, ...renamed.map(([field]) => field));
  } else if (type === 'set' && key.endsWith(':dependencies')) {
    const members = await redis.smembers(key);
    const renamed = members.filter((m) => rewriteQueueKeys(m) !== m);
    if (renamed.length > 0) {
      await redis.sadd(key, ...renamed.map(rewriteQueueKeys));
      await redis.srem(key, ...renamed);
    }
  } else if (type === 'zset' && key.endsWith(':unsuccessful')) {
    const flat = await redis.zrange(key, 0, -1, 'WITHSCORES');
    for (let i = 0; i < flat.length; i += 2) {
      const moved = rewriteQueueKeys(flat[i]);
      if (moved === flat[i]) continue;
      await redis.zadd(key, flat[i + 1], moved);
      await redis.zrem(key, flat[i]);
    }
  }
}

/**
 * The one-time move of an upgrade: every queue's keys from BullMQ's default prefix (`bull:<queue>:…`, Trawl before
 * hash tags) to their tagged prefix (`bull:{<tag>}:<queue>:…`), with the queue keys named inside jobs (a child's
 * parent, a parent's children) rewritten, and Trawl's own sets (outstanding jobs per key, published marks) moved to
 * their new keys. Nothing queued is lost: waiting, delayed, prioritized, waiting-children and finished jobs keep their
 * ids, data and state; jobs left active are taken back by the stalled-job check of the new workers.
 *
 * Run it with every task-service stopped (`npm run redis:migrate`, see docs/deploy.md), against the server the
 * legacy layout lives on: a standalone server or a Sentinel master (a Cluster never held it: the legacy batch insert
 * was refused there with CROSSSLOT). Safe to run again: a second run finds nothing to move. Keys already written under
 * the new layout are merged with, not overwritten.
 */
export async function migrateLegacyQueueKeys(redis: RedisClient): Promise<LegacyQueueMigration> {
  if (redis instanceof Cluster)
    throw new Error('the legacy queue layout is only ever on a standalone or Sentinel master');
  const report: LegacyQueueMigration = { queueKeys: 0, outstandingIds: 0, publishedMarks: 0 };
  const moved: string[] = [];
  for (const name of Object.values(QUEUES) as QueueName[]) {
    const from = `${LEGACY_QUEUE_PREFIX}:${name}`;
    const to = `${queuePrefix(name)}:${name}`;
    for (const key of await scanAll(redis, `${from}:*`)) {
      const target = `${to}${key.slice(from.length)}`;
      await moveKey(redis, key, target);
      moved.push(target);
      report.queueKeys += 1;
    }
  }
  for (const key of moved) await rewriteReferences(redis, key);

  for (const key of await scanAll(redis, `${LEGACY_OUTSTANDING}*`)) {
    const apiKeyId = key.slice(LEGACY_OUTSTANDING.length);
    for (const id of await redis.smembers(key)) {
      const prefix = prefixOfJobId(id);
      if (prefix) await redis.sadd(outstandingSetKey(prefix, apiKeyId), id);
      report.outstandingIds += 1;
    }
    await redis.del(key);
  }
  // Idempotency records: single keys, renamed (a record already under the new name wins).
  for (const key of await scanAll(redis, `${LEGACY_IDEMPOTENCY}*`)) {
    if ((await redis.renamenx(key, `${IDEMPOTENCY_KEYS}${key.slice(LEGACY_IDEMPOTENCY.length)}`)) === 0)
      await redis.del(key);
  }
  if ((await redis.exists(LEGACY_PUBLISHED)) === 1) {
    report.publishedMarks = await redis.zcard(LEGACY_PUBLISHED);
    await redis.zunionstore(PUBLISHED_OUTCOMES_KEY, 2, PUBLISHED_OUTCOMES_KEY, LEGACY_PUBLISHED, 'AGGREGATE', 'MAX');
    await redis.del(LEGACY_PUBLISHED);
  }
  return report;
}

/** Whether any key of the legacy queue layout is left (task-service warns at start-up). */
export async function hasLegacyQueueKeys(redis: RedisClient): Promise<boolean> {
  if (redis instanceof Cluster) return false;
  for (const name of Object.values(QUEUES)) {
    if ((await redis.exists(`${LEGACY_QUEUE_PREFIX}:${name}:id`, `${LEGACY_QUEUE_PREFIX}:${name}:meta`)) > 0)
      return true;
  }
  return false;
}
