import type { ExtractType } from './extract-type.js';

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
