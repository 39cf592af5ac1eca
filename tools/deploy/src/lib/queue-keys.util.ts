import { BULLMQ_PREFIX, queuePrefix, type QueueName } from '@trawl/contracts';

/**
 * Where BullMQ keeps a queue's keys in Redis, for the KEDA triggers and the Redis ACL patterns: under the queue's
 * prefix of `@trawl/contracts` (`queuePrefix`: `bull:{<hash tag>}`), the one task-service writes under.
 */

/** BullMQ's prefix, which every Trawl queue prefix starts with. */
const BULL = BULLMQ_PREFIX;

/** The waiting list of a queue: its jobs without a priority (what KEDA's list triggers read). */
export function waitListKey(queue: QueueName): string {
  return `${queuePrefix(queue)}:${queue}:wait`;
}

/**
 * The sorted set of a queue's waiting jobs with a priority: every job of a key under fair share (ADR 0011) waits
 * here, not in the list. KEDA's Redis scalers count it too (their script answers ZCARD for a sorted set).
 */
export function prioritizedKey(queue: QueueName): string {
  return `${queuePrefix(queue)}:${queue}:prioritized`;
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
