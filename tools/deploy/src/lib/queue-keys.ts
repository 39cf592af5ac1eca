import type { QueueName } from '@trawl/contracts';
import { LEGACY_QUEUE_PREFIX, queuePrefix } from '@trawl/tasks';

/**
 * Where BullMQ keeps a queue's keys in Redis, for the KEDA list triggers and the Redis ACL patterns. The layout is
 * decided once, by libs/tasks (`queuePrefix`: `bull:{<hash tag>}`, so a queue sits in one Redis Cluster slot); the
 * manifests read it from there, so a renamed queue or tag cannot leave an autoscaler watching a list nobody writes.
 */
export function waitListKey(queue: QueueName): string {
  return `${queuePrefix(queue)}:${queue}:wait`;
}

/** ACL key pattern covering every queue's keys (every queue prefix starts with `bull:`). */
export function queueKeysPattern(): string {
  return `${LEGACY_QUEUE_PREFIX}:*`;
}

/** ACL key pattern covering every queue's waiting list (what KEDA reads). */
export function waitListsPattern(): string {
  return `${LEGACY_QUEUE_PREFIX}:*:wait`;
}
