import type { IRedisTransaction } from 'bullmq';
import { QUEUES, queuePrefix, TrawlError, type KeyQueueJobs, type QueueName } from '@trawl/contracts';
import type { RedisClient } from '@trawl/redis';
import { childJobId } from './task-job-id.util.js';
import type { TaskJobData } from './task-job-data.types.js';
import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import {
  activeListKey,
  admissionLockKey,
  LAST_SUCCESS_TTL_MS,
  lastSuccessKey,
  outstandingSetKey,
  prefixOfJobId,
  QUEUE_PREFIXES,
} from './task-redis-keys.constants.js';

/** BullMQ's largest job priority (2^21); a larger one is clamped to it. */
export const MAX_JOB_PRIORITY = 2 ** 21;

/** Seconds a caller refused for having too many jobs outstanding is told to wait (`Retry-After`). */
export const OUTSTANDING_RETRY_AFTER_SEC = 30;

/** Bucket of jobs submitted without a key id (straight to task-service, never through the gateway). */
const NO_KEY = '-';

/** The outstanding set a job id belongs in (its queue's prefix), or undefined when the id names no queue. */
function setKeyOfJob(apiKeyId: string | undefined, jobId: string): string | undefined {
  const prefix = prefixOfJobId(jobId);
  return prefix ? outstandingSetKey(prefix, apiKeyId) : undefined;
}

/** Groups job ids by the outstanding set each belongs in. */
function bySetKey(apiKeyId: string | undefined, ids: string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const id of ids) {
    const key = setKeyOfJob(apiKeyId, id);
    if (!key) continue;
    const group = out.get(key);
    if (group) group.push(id);
    else out.set(key, [id]);
  }
  return out;
}

/** Most running jobs of one queue read to count a key's (`TaskAdmission.status`): far more than a fleet runs. */
const MAX_ACTIVE_READ = 10_000;

/**
 * How long a key's admission lock lasts unless its holder releases it first, ms: far longer than a cap check and a
 * 10,000-job insert take, short enough that a replica that died holding it delays the key's next submission little.
 */
export const ADMISSION_LOCK_MS = 10_000;

/**
 * Longest a submission waits for another replica's admission of the same key, ms; past it, it is admitted without the
 * lock (serialised in its own process only, as before the lock): the lock narrows the race, it never refuses work.
 */
export const ADMISSION_LOCK_WAIT_MS = 10_000;

/** Deletes the lock only if it still holds the caller's token (one that lapsed and was taken again is left alone). */
const RELEASE_LOCK_SCRIPT = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0`;

/** Ids per Redis command when a key's set is changed by many (a 10,000-query batch). */
const IDS_PER_COMMAND = 1000;

/**
 * The ids a finished job of the caller's (a URL task or a batch parent) had counted against its key: its own, and a
 * batch's queries (each query counts, the parent does not: see TaskAdmission). A query is released when it settles;
 * releasing them again with the parent catches one whose release was lost.
 */
export function countedIdsOf(jobId: string, data: TaskJobData): string[] {
  if (data.kind !== 'maps' && data.kind !== 'search') return [jobId];
  const queue = data.kind === 'maps' ? QUEUES.maps : QUEUES.search;
  return [jobId, ...data.querys.map((_, i) => childJobId(queue, jobId, i))];
}

/**
 * Jobs of key `apiKeyId` reached their final state (completed, failed after their last attempt): they no longer count
 * against the key's cap. Idempotent (a re-published outcome removes nothing more). Called where outcomes are published
 * and where a batch's query settles.
 */
export async function releaseOutstanding(
  redis: RedisClient,
  apiKeyId: string | undefined,
  ...jobIds: string[]
): Promise<void> {
  return releaseOutstandingOf(redis, apiKeyId, jobIds);
}

/**
 * `releaseOutstanding`, and for a job that completed successfully (`succeededAt`, ms; its id first in `jobIds`) the
 * key's last success, written in the same round trip as the release of its own id (their keys share its slot).
 */
export async function releaseOutstandingOf(
  redis: RedisClient,
  apiKeyId: string | undefined,
  jobIds: string[],
  succeededAt?: number,
): Promise<void> {
  const successPrefix = succeededAt !== undefined && jobIds.length > 0 ? prefixOfJobId(jobIds[0]) : undefined;
  let recorded = successPrefix === undefined;
  for (const [key, group] of bySetKey(apiKeyId, jobIds)) {
    for (let i = 0; i < group.length; i += IDS_PER_COMMAND) {
      const pipeline = redis.pipeline().srem(key, ...group.slice(i, i + IDS_PER_COMMAND));
      if (!recorded && key === outstandingSetKey(successPrefix as string, apiKeyId)) {
        pipeline.set(lastSuccessKey(successPrefix as string, apiKeyId), String(succeededAt), 'PX', LAST_SUCCESS_TTL_MS);
        recorded = true;
      }
      const results = (await pipeline.exec()) ?? [];
      const failed = results.find(([error]) => error);
      if (failed) throw failed[0];
    }
  }
}

/** A job's priority: 1 is served first; clamped to BullMQ's range. */
export function clampPriority(ordinal: number): number {
  return Math.min(Math.max(1, Math.floor(ordinal)), MAX_JOB_PRIORITY);
}

/**
 * Per-key admission and fair scheduling of the jobs that do work: URL tasks, and the queries of maps and search
 * batches (ADR 0021). A batch parent only gathers its queries' results: it is not counted, its queries are.
 *
 * Each key's outstanding jobs (queued, delayed or active: not yet in a final state) are Redis sets of job ids, one
 * per queue prefix (`<prefix>:outstanding:<key id>`, in the slot of that prefix's queues); the key's count is their
 * sum. A submission is refused whole with RATE_LIMITED when it would take the key
 * past its cap (a batch of 101 queries under a cap of 100 is refused). Otherwise its jobs get BullMQ priorities
 * continuing the key's count: with `o` jobs outstanding, a batch of `n` URLs or queries gets priorities o+1 … o+n.
 * BullMQ serves lower priorities first (FIFO among equals), so keys are served round-robin: key B's first job
 * (priority 1) runs before key A's second, however many A queued. URL tasks' ids are added to the set in the same
 * MULTI as the jobs (see TaskQueues.addAllOrNothing), queries' just before their flow is added (`track`); they are
 * removed when a job reaches its final state (release, called where outcomes are published and where a query
 * settles); removal is idempotent, so a re-published outcome does not count twice. So the cap bounds what one key
 * holds unfinished in the task Redis (which must not evict): at most `cap` jobs of a bounded size each.
 *
 * The cap check (SCARD) and the insert are two steps, so one key's submissions are admitted one at a time: within a
 * process by a chain per key, across task-service replicas by the key's admission lock in Redis (`admissionLockKey`,
 * SET NX with a token, released by a script that checks it). The sets live in one slot per queue prefix, so no single
 * script could check and insert across them. A lock held longer than ADMISSION_LOCK_WAIT_MS (its holder stuck, Redis
 * slow) is waited out no longer: the submission is then admitted under its process's chain alone, and concurrent
 * submissions of one key may again pass the cap by at most what they add.
 */
export class TaskAdmission {
  private readonly chains = new Map<string, Promise<unknown>>();
  private readonly logger = new Logger('TaskAdmission');

  constructor(
    private readonly redis: RedisClient,
    /** The cap of a key's outstanding jobs when it has none of its own (TASK_MAX_OUTSTANDING_PER_KEY). */
    private readonly defaultCap: number,
    /** The Redis key of a job's hash, from its id (undefined: not a job id); used to prune jobs that are gone. */
    private readonly jobHashKey: (jobId: string) => string | undefined,
  ) {}

  /** The Redis sets of a key's outstanding job ids, one per queue prefix. */
  setKeys(apiKeyId: string | undefined): string[] {
    return QUEUE_PREFIXES.map((prefix) => outstandingSetKey(prefix, apiKeyId));
  }

  /** How many jobs of this key are outstanding (over every queue prefix). */
  async outstanding(apiKeyId: string | undefined): Promise<number> {
    const counts = await Promise.all(this.setKeys(apiKeyId).map((key) => this.redis.scard(key)));
    return counts.reduce((a, b) => a + b, 0);
  }

  /**
   * Runs `insert` for `count` new jobs of `apiKeyId` if the key's cap allows them, serialised with the key's other
   * submissions in this process. `insert` gets the first priority to use (outstanding + 1) and a function that adds
   * the new job ids to the key's sets inside the caller's MULTI (the ids' queues must share the MULTI's slot). Throws RATE_LIMITED (nothing inserted) beyond the cap.
   */
  admit<T>(
    apiKeyId: string | undefined,
    count: number,
    /** The key's own cap; undefined: the default. */
    cap: number | undefined,
    insert: (firstPriority: number, track: (multi: IRedisTransaction, ids: string[]) => void) => Promise<T>,
  ): Promise<T> {
    const bucket = apiKeyId || NO_KEY;
    const run = (): Promise<T> => this.underKeyLock(apiKeyId, admitted);
    const admitted = async (): Promise<T> => {
      const limit = cap ?? this.defaultCap;
      let outstanding = await this.outstanding(apiKeyId);
      // Before refusing, drop what no longer counts (a job removed by hand, a release lost to a Redis error).
      if (outstanding + count > limit) outstanding = await this.prune(apiKeyId);
      if (outstanding + count > limit) {
        throw new TrawlError(
          'RATE_LIMITED',
          `this API key has ${outstanding} job(s) queued or running and may have at most ${limit}; this batch of ${count} would pass the cap (nothing was queued); retry when some have finished`,
        );
      }
      return insert(outstanding + 1, (multi, ids) => {
        for (const [key, group] of bySetKey(apiKeyId, ids)) {
          for (let i = 0; i < group.length; i += IDS_PER_COMMAND) {
            multi.runCommand('sadd', [key, ...group.slice(i, i + IDS_PER_COMMAND)]);
          }
        }
      });
    };
    const previous = this.chains.get(bucket) ?? Promise.resolve();
    const next = previous.then(run, run);
    const tail = next.catch(() => undefined);
    this.chains.set(bucket, tail);
    void tail.then(() => {
      if (this.chains.get(bucket) === tail) this.chains.delete(bucket);
    });
    return next;
  }

  /**
   * Runs `work` holding the key's admission lock, so that no other replica admits a submission of the key meanwhile.
   * Waits for another holder up to ADMISSION_LOCK_WAIT_MS (short pauses, growing to 100 ms), then runs without it.
   */
  private async underKeyLock<T>(apiKeyId: string | undefined, work: () => Promise<T>): Promise<T> {
    const key = admissionLockKey(apiKeyId);
    const token = randomUUID();
    // Taken, or already ours: a SET whose reply was lost when Redis failed over is sent again on the new connection
    // and finds the caller's own token.
    const take = async () =>
      (await this.redis.set(key, token, 'PX', ADMISSION_LOCK_MS, 'NX')) === 'OK' ||
      (await this.redis.get(key)) === token;
    const until = Date.now() + ADMISSION_LOCK_WAIT_MS;
    let pause = 5;
    let held = await take();
    while (!held && Date.now() < until) {
      await new Promise((r) => setTimeout(r, pause + Math.random() * pause));
      pause = Math.min(pause * 2, 100);
      held = await take();
    }
    if (!held) {
      this.logger.warn(
        `admission lock of key ${apiKeyId || NO_KEY} still held after ${ADMISSION_LOCK_WAIT_MS} ms; admitting without it`,
      );
    }
    try {
      return await work();
    } finally {
      if (held) {
        // A failed release leaves the lock to lapse (ADMISSION_LOCK_MS); the submission's outcome stands.
        await this.redis.eval(RELEASE_LOCK_SCRIPT, 1, key, token).catch(() => undefined);
      }
    }
  }

  /**
   * Adds ids to a key's set outside a MULTI: a maps or search batch, whose jobs BullMQ's FlowProducer creates in its
   * own transaction. Called before the flow is added (so its outcome cannot be released before it is counted); on
   * failure the caller untracks them.
   */
  async track(apiKeyId: string | undefined, ids: string[]): Promise<void> {
    for (const [key, group] of bySetKey(apiKeyId, ids)) {
      for (let i = 0; i < group.length; i += IDS_PER_COMMAND) {
        await this.redis.sadd(key, ...group.slice(i, i + IDS_PER_COMMAND));
      }
    }
  }

  /** Removes ids from a key's sets inside the caller's MULTI (a held batch that was not confirmed: ADR 0015). */
  untrackIn(multi: IRedisTransaction, apiKeyId: string | undefined, ids: string[]): void {
    for (const [key, group] of bySetKey(apiKeyId, ids)) {
      for (let i = 0; i < group.length; i += IDS_PER_COMMAND) {
        multi.runCommand('srem', [key, ...group.slice(i, i + IDS_PER_COMMAND)]);
      }
    }
  }

  untrack(apiKeyId: string | undefined, ids: string[]): Promise<void> {
    return releaseOutstanding(this.redis, apiKeyId, ...ids);
  }

  /**
   * Where a key's jobs stand (`task.queue.v1`, ADR 0041): its outstanding jobs; of those, the ones running (each
   * queue's active list, at most `MAX_ACTIVE_READ` a queue, checked against the key's set of that queue's prefix: the
   * cost is the fleet's running jobs, never the key's queued ones); its cap; its last success.
   */
  async status(apiKeyId: string | undefined, cap: number | undefined): Promise<KeyQueueJobs> {
    const queues = Object.values(QUEUES) as QueueName[];
    const [outstanding, runningPerQueue, lastPerPrefix] = await Promise.all([
      this.outstanding(apiKeyId),
      Promise.all(queues.map((queue) => this.runningIn(queue, apiKeyId))),
      Promise.all(QUEUE_PREFIXES.map((prefix) => this.redis.get(lastSuccessKey(prefix, apiKeyId)))),
    ]);
    // A job released a moment ago may still be in its active list: running never exceeds outstanding.
    const running = Math.min(
      outstanding,
      runningPerQueue.reduce((a, b) => a + b, 0),
    );
    const last = Math.max(0, ...lastPerPrefix.map((v) => Number(v ?? 0)).filter((n) => Number.isFinite(n)));
    return {
      outstanding,
      running,
      waiting: outstanding - running,
      max: cap ?? this.defaultCap,
      lastSuccessAt: last > 0 ? new Date(last).toISOString() : null,
    };
  }

  /** How many of the jobs a queue's workers are running now are the key's. */
  private async runningIn(queue: QueueName, apiKeyId: string | undefined): Promise<number> {
    const ids = await this.redis.lrange(activeListKey(queue), 0, MAX_ACTIVE_READ - 1);
    if (ids.length === 0) return 0;
    const member = await this.redis.smismember(outstandingSetKey(queuePrefix(queue), apiKeyId), ...ids);
    return member.filter((m) => m === 1).length;
  }

  /** Removes from a key's sets the ids whose job is gone or finished; returns how many remain. */
  async prune(apiKeyId: string | undefined): Promise<number> {
    for (const key of this.setKeys(apiKeyId)) await this.pruneSet(key);
    return this.outstanding(apiKeyId);
  }

  private async pruneSet(key: string): Promise<void> {
    const ids = await this.redis.smembers(key);
    const gone: string[] = [];
    for (let i = 0; i < ids.length; i += 1000) {
      const chunk = ids.slice(i, i + 1000);
      const pipeline = this.redis.pipeline();
      for (const id of chunk) {
        const hash = this.jobHashKey(id);
        if (hash) pipeline.hmget(hash, 'timestamp', 'finishedOn');
        else pipeline.echo('');
      }
      const results = (await pipeline.exec()) ?? [];
      for (const [k, [error, value]] of results.entries()) {
        if (error) continue;
        const [timestamp, finishedOn] = Array.isArray(value) ? (value as (string | null)[]) : [null, null];
        if (!timestamp || finishedOn) gone.push(chunk[k]);
      }
    }
    for (let i = 0; i < gone.length; i += 1000) await this.redis.srem(key, ...gone.slice(i, i + 1000));
  }

  /** The jobs reached their final state: they no longer count. Idempotent. */
  release(apiKeyId: string | undefined, ...jobIds: string[]): Promise<void> {
    return releaseOutstanding(this.redis, apiKeyId, ...jobIds);
  }
}
