import type { QueueName } from '@trawl/contracts';

/**
 * Where BullMQ keeps a queue's keys in Redis, for the KEDA list triggers and the Redis ACL patterns: the one place in
 * the manifests that knows the key layout (the services' side is libs/tasks). `prefix` is `redis.bullPrefix` from
 * the values.
 */
export function waitListKey(prefix: string, queue: QueueName): string {
  return `${prefix}:${queue}:wait`;
}

/** ACL key pattern covering every queue's keys. */
export function queueKeysPattern(prefix: string): string {
  return `${prefix}:*`;
}

/** ACL key pattern covering every queue's waiting list (what KEDA reads). */
export function waitListsPattern(prefix: string): string {
  return `${prefix}:*:wait`;
}
