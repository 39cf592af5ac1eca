import type { ExtractType } from './extract-type.constants.js';

/**
 * BullMQ queue names, one per kind of work so each extractor kind scales and is rate-limited on its own. A maps or
 * search batch is a parent job in `batch` whose children run one query each in `maps` or `search`.
 */
export const QUEUES = {
  batch: 'trawl-batch',
  maps: 'trawl-maps',
  search: 'trawl-search',
  retail: 'trawl-retail',
  mpMaps: 'trawl-mp-maps',
  mpSearch: 'trawl-mp-search',
  scrape: 'trawl-scrape',
} as const;

export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];

/**
 * The Redis Cluster hash tag of each queue. Every key of a queue carries its tag, so a queue (and every BullMQ script
 * and MULTI on it) stays in one slot, while different tags spread over the masters. A flow's parent and children must
 * share a slot (BullMQ moves a child's result into its parent's keys in one script), so the batch queue and the query
 * queues its children run in (maps, search) share the tag `batch`; each URL queue has its own. A contract: task-service
 * writes these keys, and the autoscaler triggers and Redis ACLs of the deploy read them.
 */
export const QUEUE_HASH_TAGS: Readonly<Record<QueueName, string>> = {
  [QUEUES.batch]: 'batch',
  [QUEUES.maps]: 'batch',
  [QUEUES.search]: 'batch',
  [QUEUES.retail]: 'retail',
  [QUEUES.mpMaps]: 'mp-maps',
  [QUEUES.mpSearch]: 'mp-search',
  [QUEUES.scrape]: 'scrape',
};

/**
 * task-service's keys besides its queues' (the deploy's Redis ACL grants exactly these): the idempotency records
 * (`trawl:idempotency:<key id>:<sha256>`; single-key commands only, so no hash tag: they spread over a Cluster's
 * masters) and the sorted set of outcome events already published (score: the job's finishedOn).
 */
export const IDEMPOTENCY_KEYS = 'trawl:idempotency:';
export const PUBLISHED_OUTCOMES_KEY = 'trawl:{outcomes}:published';

/** BullMQ's default prefix, which every Trawl queue prefix starts with. */
export const BULLMQ_PREFIX = 'bull';

/**
 * The BullMQ prefix of a queue: `bull:{<tag>}`, so its keys are `bull:{<tag>}:<queue>:…` (e.g.
 * `bull:{scrape}:trawl-scrape:wait`). It still starts with `bull:`, so Redis ACL key patterns written for `bull:*`
 * keep matching.
 */
export function queuePrefix(name: QueueName): string {
  return `${BULLMQ_PREFIX}:{${QUEUE_HASH_TAGS[name]}}`;
}

/** The queue that runs one URL task of each `type`. */
export const URL_QUEUE_BY_TYPE: Record<ExtractType, QueueName> = {
  retail: QUEUES.retail,
  'mp-maps': QUEUES.mpMaps,
  'mp-search': QUEUES.mpSearch,
  scrape: QUEUES.scrape,
};

/** Job options the spec gives for every batch job. */
export const DEFAULT_JOB_OPTIONS = {
  attempts: 5,
  removeOnComplete: 300000,
  removeOnFail: 100000,
  backoff: { type: 'fixed', delay: 1000 },
} as const;
