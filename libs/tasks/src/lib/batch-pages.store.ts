import type { RedisClient } from '@trawl/redis';
import { batchPagesDoneKey } from './task-redis-keys.constants.js';

/**
 * Adds a finished job id to its batch's set and answers whether that added it and the set's size, in one script (so
 * the add and the count are one step whichever replica runs it). The set's expiry is renewed on every add.
 */
const FINISH_PAGE = `
local added = redis.call('SADD', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return { added, redis.call('SCARD', KEYS[1]) }
`;

/** What one finished page did to its batch's count. */
export interface BatchPageCount {
  /** Whether this call counted the job (false: it had been counted before, a redelivery or a re-publish). */
  counted: boolean;
  /** Distinct jobs of the batch finished so far. */
  finished: number;
  /** Every page of the batch is final: its `completed` event is due (again, after a redelivery; its id is stable). */
  complete: boolean;
}

/**
 * The finished pages of URL batches whose webhook wants batch-level events (Firecrawl's `batch_scrape.completed`),
 * counted in Redis across task-service replicas. A job counts once however often its outcome is published (a crash
 * between publishing and marking it publishes it again): the set holds job ids, not a counter.
 */
export class BatchPagesStore {
  constructor(
    private readonly redis: RedisClient,
    /** How long a batch's set lives after its last finished page, ms. */
    private readonly ttlMs: number,
  ) {}

  async finish(batchId: string, jobId: string, total: number): Promise<BatchPageCount> {
    const [added, finished] = (await this.redis.eval(
      FINISH_PAGE,
      1,
      batchPagesDoneKey(batchId),
      jobId,
      this.ttlMs,
    )) as [number, number];
    return { counted: added === 1, finished, complete: finished >= total };
  }
}
