import { QUEUES, type QueueName } from '@trawl/contracts';

/**
 * Where BullMQ keeps a queue's keys in Redis, for the KEDA list triggers and the Redis ACL patterns. The layout is
 * libs/tasks' (`queuePrefix`: `bull:{<hash tag>}`, so a queue sits in one Redis Cluster slot, and `QUEUE_HASH_TAGS`);
 * only task-service may import libs/tasks (BullMQ underneath), so the tags are repeated here and
 * `tools/deploy/test/queue-keys.spec.ts` fails when the two differ: an autoscaler never watches a list nobody writes.
 */
export const QUEUE_HASH_TAGS: Record<QueueName, string> = {
  [QUEUES.batch]: 'batch',
  [QUEUES.maps]: 'batch',
  [QUEUES.search]: 'batch',
  [QUEUES.retail]: 'retail',
  [QUEUES.mpMaps]: 'mp-maps',
  [QUEUES.mpSearch]: 'mp-search',
  [QUEUES.scrape]: 'scrape',
};

/** BullMQ's prefix, which every Trawl queue prefix starts with. */
const BULL = 'bull';

/** The BullMQ prefix of a queue, as libs/tasks' `queuePrefix`. */
export function queuePrefixOf(queue: QueueName): string {
  return `${BULL}:{${QUEUE_HASH_TAGS[queue]}}`;
}

/** The waiting list of a queue: its jobs without a priority (what KEDA's list triggers read). */
export function waitListKey(queue: QueueName): string {
  return `${queuePrefixOf(queue)}:${queue}:wait`;
}

/**
 * The sorted set of a queue's waiting jobs with a priority: every job of a key under fair share (ADR 0011) waits
 * here, not in the list. KEDA's Redis scalers count it too (their script answers ZCARD for a sorted set).
 */
export function prioritizedKey(queue: QueueName): string {
  return `${queuePrefixOf(queue)}:${queue}:prioritized`;
}

/** Where a queue's waiting jobs are: the list and the sorted set, each watched by a trigger of its own. */
export function waitingKeys(queue: QueueName): { wait: string; prioritized: string } {
  return { wait: waitListKey(queue), prioritized: prioritizedKey(queue) };
}

/** ACL key pattern covering every queue's keys. */
export function queueKeysPattern(): string {
  return `${BULL}:*`;
}

/** ACL key pattern covering every queue's waiting list (what KEDA reads). */
export function waitListsPattern(): string {
  return `${BULL}:*:wait`;
}

/** ACL key pattern covering every queue's sorted set of prioritized waiting jobs (what KEDA reads too). */
export function prioritizedPattern(): string {
  return `${BULL}:*:prioritized`;
}
