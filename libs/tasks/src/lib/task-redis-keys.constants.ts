import { QUEUES, queuePrefix, type QueueName } from '@trawl/contracts';
import { queueOfJobId } from './task-job-id.util.js';

// The key layout of queues is a contract (the deploy's autoscalers read it): defined in @trawl/contracts.
export { BULLMQ_PREFIX, QUEUE_HASH_TAGS, queuePrefix } from '@trawl/contracts';

/** The distinct queue prefixes (one per hash tag), in QUEUES order. */
export const QUEUE_PREFIXES: readonly string[] = [...new Set(Object.values(QUEUES).map(queuePrefix))];

/** The prefix of the queue a job id names, or undefined when it names none. */
export function prefixOfJobId(jobId: string): string | undefined {
  const name = queueOfJobId(jobId);
  return name ? queuePrefix(name) : undefined;
}

/** Bucket of jobs submitted without a key id (straight to task-service, never through the gateway). */
const NO_KEY = '-';

/**
 * The set of a key's outstanding job ids among the queues of one prefix (`<prefix>:outstanding:<key id>`): in the
 * queues' slot, so a batch insert adds its ids in the same MULTI as its jobs. A key's count is the sum over prefixes.
 */
export function outstandingSetKey(prefix: string, apiKeyId: string | undefined): string {
  return `${prefix}:outstanding:${apiKeyId || NO_KEY}`;
}

/**
 * When a key's latest job completed successfully, among the queues of one prefix (`<prefix>:lastsuccess:<key id>`,
 * milliseconds since the epoch): written with the release of its outstanding ids, in their slot; kept 30 days.
 */
export function lastSuccessKey(prefix: string, apiKeyId: string | undefined): string {
  return `${prefix}:lastsuccess:${apiKeyId || NO_KEY}`;
}

/**
 * A key's admission lock (`<first prefix>:admitting:<key id>`): held by the task-service replica admitting a
 * submission of that key, from its cap check to its insert, so that replicas admit one key's submissions one at a time
 * (TaskAdmission). Its value is the holder's token; it lapses on its own (ADMISSION_LOCK_MS).
 */
export function admissionLockKey(apiKeyId: string | undefined): string {
  return `${QUEUE_PREFIXES[0]}:admitting:${apiKeyId || NO_KEY}`;
}

/** How long a key's last success is kept after it: a key idle that long reads as never having succeeded. */
export const LAST_SUCCESS_TTL_MS = 30 * 24 * 3600 * 1000;

/** A queue's list of the jobs its workers are running (BullMQ's `active`). */
export function activeListKey(queue: QueueName): string {
  return `${queuePrefix(queue)}:${queue}:active`;
}

// Its keys besides the queues': a contract too (the deploy's Redis ACL grants exactly these).
export { IDEMPOTENCY_KEYS, PUBLISHED_OUTCOMES_KEY } from '@trawl/contracts';

/**
 * The set of a Firecrawl-form URL batch's finished job ids (`trawl:{batch:<id>}:done`): one hash tag per batch, so its
 * counting script touches one slot. The deploy's Redis ACL grants `~trawl:{batch:*` to task-service.
 */
export function batchPagesDoneKey(batchId: string): string {
  return `trawl:{batch:${batchId}}:done`;
}
