import { QUEUES, type QueueName } from '@trawl/contracts';
import { queueOfJobId } from './task-job-id.js';

/**
 * The hash tag of each queue. Every key of a queue carries its tag, so a queue (and every BullMQ script and MULTI on
 * it) stays in one Redis Cluster slot, while different tags spread over the masters. A flow's parent and children
 * must share a slot (BullMQ moves a child's result into its parent's keys in one script), so the batch queue and the
 * query queues its children run in (maps, search) share the tag `batch`; each URL queue has its own.
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

/** The BullMQ prefix every Trawl queue had before hash tags (BullMQ's default); see `migrateLegacyQueueKeys`. */
export const LEGACY_QUEUE_PREFIX = 'bull';

/**
 * The BullMQ prefix of a queue: `bull:{<tag>}`, so its keys are `bull:{<tag>}:<queue>:…` (e.g.
 * `bull:{scrape}:trawl-scrape:wait`). It still starts with `bull:`, so Redis ACL key patterns written for `bull:*`
 * keep matching; the keys differ from the legacy `bull:<queue>:…` ones, which `migrateLegacyQueueKeys` moves.
 */
export function queuePrefix(name: QueueName): string {
  return `${LEGACY_QUEUE_PREFIX}:{${QUEUE_HASH_TAGS[name]}}`;
}

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
 * Prefix of the idempotency records (`trawl:idempotency:<key id>:<sha256>`): single-key commands only, so no hash tag
 * (they spread over a Cluster's masters).
 */
export const IDEMPOTENCY_KEYS = 'trawl:idempotency:';

/** The sorted set of outcome events already published (score: the job's finishedOn); single-key commands only. */
export const PUBLISHED_OUTCOMES_KEY = 'trawl:{outcomes}:published';
