import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { QUEUES, SUBJECT_TABLE } from '@trawl/contracts';
import { standaloneRedisTopology } from '@trawl/redis';
import { startRedis, type TestServer } from '@trawl/testing';
import { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import {
  clampPriority,
  countedIdsOf,
  MAX_JOB_PRIORITY,
  releaseOutstanding,
  releaseOutstandingOf,
} from './task-admission.service.js';
import { childJobId } from './task-job-id.util.js';
import { TaskQueues } from './task-queues.service.js';
import { admissionLockKey, outstandingSetKey, prefixOfJobId } from './task-redis-keys.constants.js';

import { TaskSubmitter } from './task-submitter.service.js';

/** Submits as task-service's handler does: the payload checked against its row first (SUBJECT_TABLE.taskSubmit). */
async function submitOverWire(submitter: TaskSubmitter, payload: unknown): ReturnType<TaskSubmitter['submit']> {
  return submitter.submit(SUBJECT_TABLE.taskSubmit.request.parse(payload));
}

const WEBHOOK = 'https://hooks.test/h';
const urlBatch = (apiKeyId: string | undefined, n: number, tag = 'p') => ({
  kind: 'url',
  request: {
    urls: Array.from({ length: n }, (_, i) => `https://site.test/${tag}/${i}`),
    webhook: WEBHOOK,
    type: 'scrape',
  },
  ...(apiKeyId ? { apiKeyId } : {}),
});

const mapsBatch = (apiKeyId: string, n: number) => ({
  kind: 'maps',
  request: { querys: Array.from({ length: n }, (_, i) => `q${i}`), ll: '@40.7,-74.0,14z', webhook: WEBHOOK },
  apiKeyId,
});
const searchBatch = (apiKeyId: string, n: number) => ({
  kind: 'search',
  request: { querys: Array.from({ length: n }, (_, i) => `q${i}`), webhook: WEBHOOK },
  apiKeyId,
});

describe('TaskAdmission: per-key cap and fair priorities (real Redis)', () => {
  let redis: TestServer;
  let queues: TaskQueues;
  let submitter: TaskSubmitter;

  beforeAll(async () => {
    redis = await startRedis();
    queues = new TaskQueues({ topology: standaloneRedisTopology(redis.url) });
    submitter = new TaskSubmitter(queues, async () => undefined, undefined, { maxOutstandingPerKey: 10 });
  });

  afterAll(async () => {
    await queues?.close();
    await redis?.stop();
  });

  const scrapeCount = async () => {
    const counts = await queues.queue(QUEUES.scrape).getJobCounts();
    return Object.values(counts).reduce((a, b) => a + b, 0);
  };

  it("numbers each key's jobs from its outstanding count, so keys interleave (B's first job ahead of A's second)", async () => {
    const a = await submitOverWire(submitter, urlBatch('fair-a', 5));
    const b = await submitOverWire(submitter, urlBatch('fair-b', 2));
    expect(a.jobs.map((j) => j.priority)).toEqual([1, 2, 3, 4, 5]);
    expect(b.jobs.map((j) => j.priority)).toEqual([1, 2]);
    // A's next batch continues after its outstanding jobs.
    expect((await submitOverWire(submitter, urlBatch('fair-a', 2, 'q'))).jobs.map((j) => j.priority)).toEqual([6, 7]);
    expect(await submitter.admission.outstanding('fair-a')).toBe(7);
    expect(await queues.queue(QUEUES.scrape).getJobState(a.jobs[0].id)).toBe('prioritized');
  });

  it('refuses whole a batch that would pass the cap: RATE_LIMITED, no job created, nothing counted', async () => {
    await submitOverWire(submitter, urlBatch('capped', 8));
    const before = await scrapeCount();
    await expect(submitOverWire(submitter, urlBatch('capped', 3, 'more'))).rejects.toMatchObject({
      code: 'RATE_LIMITED',
      retryable: true,
    });
    expect(await scrapeCount()).toBe(before);
    expect(await submitter.admission.outstanding('capped')).toBe(8);
    // Up to the cap is fine.
    expect((await submitOverWire(submitter, urlBatch('capped', 1, 'one'))).jobs).toHaveLength(1);
    expect(await submitter.admission.outstanding('capped')).toBe(9);
    // A maps batch counts each of its queries: one query fits, two do not.
    await expect(submitOverWire(submitter, mapsBatch('capped', 2))).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    expect((await submitOverWire(submitter, mapsBatch('capped', 1))).jobs).toHaveLength(1);
    expect(await submitter.admission.outstanding('capped')).toBe(10);
  });

  it('counts every query of a maps or search batch against the cap: 10 queries fit a cap of 10, 11 do not', async () => {
    const before = await queues.queue(QUEUES.search).count();
    await expect(submitOverWire(submitter, searchBatch('queries', 11))).rejects.toMatchObject({
      code: 'RATE_LIMITED',
      message: expect.stringMatching(/batch of 11 .*at most 10|at most 10.*batch of 11/),
    });
    // Nothing was queued or counted for the refused batch.
    expect(await queues.queue(QUEUES.search).count()).toBe(before);
    expect(await submitter.admission.outstanding('queries')).toBe(0);
    const { jobs } = await submitOverWire(submitter, searchBatch('queries', 10));
    expect(jobs).toHaveLength(1);
    expect(await submitter.admission.outstanding('queries')).toBe(10);
    await expect(submitOverWire(submitter, urlBatch('queries', 1))).rejects.toMatchObject({ code: 'RATE_LIMITED' });
  });

  it("gives a batch's queries its key's next positions, as URL tasks get, not 1…n in every batch", async () => {
    const first = await submitOverWire(submitter, mapsBatch('positions', 3));
    const second = await submitOverWire(submitter, mapsBatch('positions', 3));
    const other = await submitOverWire(submitter, mapsBatch('positions-b', 2));
    const priorities = async (parentId: string, n: number) =>
      Promise.all(
        Array.from({ length: n }, async (_, i) => {
          const child = await queues.getJob(childJobId(QUEUES.maps, parentId, i));
          return child?.opts.priority;
        }),
      );
    expect(await priorities(first.jobs[0].id, 3)).toEqual([1, 2, 3]);
    expect(await priorities(second.jobs[0].id, 3)).toEqual([4, 5, 6]);
    expect(await priorities(other.jobs[0].id, 2)).toEqual([1, 2]);
    // A URL batch of the same key continues after its queries.
    expect((await submitOverWire(submitter, urlBatch('positions', 1))).jobs[0].priority).toBe(7);
    // The parent holds no place in the count: only its queries do.
    expect(await submitter.admission.outstanding('positions')).toBe(7);
  });

  it("a finished batch's outcome releases its queries (and a query released on its own is not counted twice)", async () => {
    const { jobs } = await submitOverWire(submitter, mapsBatch('batch-released', 4));
    const parent = (await queues.getJob(jobs[0].id))!;
    await releaseOutstanding(queues.connection, 'batch-released', childJobId(QUEUES.maps, parent.id!, 0));
    expect(await submitter.admission.outstanding('batch-released')).toBe(3);
    await submitter.admission.release('batch-released', ...countedIdsOf(parent.id!, parent.data));
    expect(await submitter.admission.outstanding('batch-released')).toBe(0);
  });

  it("applies a key's own cap (maxOutstanding, from the key store through the gateway) instead of the default", async () => {
    await expect(submitOverWire(submitter, { ...urlBatch('own-cap', 4), maxOutstanding: 3 })).rejects.toMatchObject({
      code: 'RATE_LIMITED',
      message: expect.stringMatching(/at most 3/),
    });
    expect((await submitOverWire(submitter, { ...urlBatch('own-cap', 12), maxOutstanding: 50 })).jobs).toHaveLength(12);
    await expect(submitOverWire(submitter, { ...urlBatch('own-cap', 1), maxOutstanding: 0 })).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      field: 'maxOutstanding',
    });
  });

  it('a job in its final state stops counting, once however often its outcome is published', async () => {
    const { jobs } = await submitOverWire(submitter, urlBatch('released', 3));
    await releaseOutstanding(queues.connection, 'released', jobs[0].id);
    await releaseOutstanding(queues.connection, 'released', jobs[0].id);
    expect(await submitter.admission.outstanding('released')).toBe(2);
    expect(
      await queues.connection.sismember(outstandingSetKey(prefixOfJobId(jobs[1].id)!, 'released'), jobs[1].id),
    ).toBe(1);
  });

  it("reports a key's queue: outstanding, running (BullMQ's active list), waiting, its cap and its last success", async () => {
    expect(await submitter.admission.status('queue-status', undefined)).toEqual({
      outstanding: 0,
      running: 0,
      waiting: 0,
      max: 10,
      lastSuccessAt: null,
    });
    const { jobs } = await submitOverWire(submitter, urlBatch('queue-status', 3));
    await submitOverWire(submitter, urlBatch('queue-status-other', 2));
    // A worker takes jobs as task-service's do (BullMQ moves each to its queue's active list).
    const connection = new Redis(redis.url, { maxRetriesPerRequest: null });
    const worker = new Worker(QUEUES.scrape, null, {
      connection,
      prefix: queues.prefixOf(QUEUES.scrape),
      autorun: false,
    });
    try {
      const running: { id?: string }[] = [];
      for (;;) {
        const job = await worker.getNextJob('status-token');
        if (!job) break;
        running.push(job);
        if (running.filter((j) => jobs.some((mine) => mine.id === j.id)).length === 2) break;
      }
      const mine = running.filter((j) => jobs.some((m) => m.id === j.id)).length;
      expect(await submitter.admission.status('queue-status', 7)).toEqual({
        outstanding: 3,
        running: mine,
        waiting: 3 - mine,
        max: 7,
        lastSuccessAt: null,
      });
      expect(mine).toBe(2);
      const at = Date.UTC(2026, 10, 29, 10, 0, 0);
      await releaseOutstandingOf(queues.connection, 'queue-status', [jobs[0].id], at);
      await releaseOutstandingOf(queues.connection, 'queue-status', [jobs[1].id]);
      const after = await submitter.admission.status('queue-status', undefined);
      expect(after).toMatchObject({ outstanding: 1, waiting: after.outstanding - after.running });
      expect(after.lastSuccessAt).toBe(new Date(at).toISOString());
      expect((await submitter.admission.status('queue-status-other', undefined)).lastSuccessAt).toBeNull();
    } finally {
      await worker.close(true);
      connection.disconnect();
    }
  });

  it('before refusing, forgets jobs that are gone (removed by hand) so the count does not drift up', async () => {
    const { jobs } = await submitOverWire(submitter, urlBatch('drift', 10));
    await expect(submitOverWire(submitter, urlBatch('drift', 1, 'x'))).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    for (const job of jobs.slice(0, 4)) await queues.queue(QUEUES.scrape).remove(job.id);
    expect((await submitOverWire(submitter, urlBatch('drift', 4, 'y'))).jobs).toHaveLength(4);
    expect(await submitter.admission.outstanding('drift')).toBe(10);
  });

  it("serialises one key's concurrent submissions in a process, so together they do not pass the cap", async () => {
    const results = await Promise.allSettled(
      Array.from({ length: 5 }, (_, i) => submitOverWire(submitter, urlBatch('racing', 3, `r${i}`))),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
    expect(await submitter.admission.outstanding('racing')).toBe(9);
  });

  it("admits one key's submissions one at a time across replicas too (the key's lock in Redis): the cap holds", async () => {
    // Five task-service replicas: each its own queues, connections and in-process chain, one Redis.
    const replicas = await Promise.all(
      Array.from({ length: 5 }, async () => {
        const q = new TaskQueues({ topology: standaloneRedisTopology(redis.url) });
        return { q, s: new TaskSubmitter(q, async () => undefined, undefined, { maxOutstandingPerKey: 10 }) };
      }),
    );
    try {
      const results = await Promise.allSettled(
        replicas.map(({ s }, i) => submitOverWire(s, urlBatch('racing-fleet', 3, `f${i}`))),
      );
      expect(results.filter((r) => r.status === 'fulfilled').length).toBe(3);
      for (const r of results.filter((r) => r.status === 'rejected'))
        expect((r as PromiseRejectedResult).reason).toMatchObject({ code: 'RATE_LIMITED' });
      expect(await submitter.admission.outstanding('racing-fleet')).toBe(9);
      // Positions stay the key's own: each admitted batch continued the count of the one before it.
      const priorities = results
        .flatMap((r) => (r.status === 'fulfilled' ? r.value.jobs.map((j) => j.priority) : []))
        .sort((a, b) => a - b);
      expect(priorities).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
      // Every lock was given back: the key's next submission waits for nobody.
      const connection = new Redis(redis.url);
      expect(await connection.exists(admissionLockKey('racing-fleet'))).toBe(0);
      connection.disconnect();
    } finally {
      await Promise.all(replicas.map(({ q }) => q.close()));
    }
  });

  it("clamps priorities to BullMQ's range", () => {
    expect(clampPriority(0)).toBe(1);
    expect(clampPriority(MAX_JOB_PRIORITY + 5)).toBe(MAX_JOB_PRIORITY);
  });
});
