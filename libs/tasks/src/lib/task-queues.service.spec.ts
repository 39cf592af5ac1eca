import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { QUEUES } from '@trawl/contracts';
import { startRedis, type TestServer } from '@trawl/testing';
import { standaloneRedisTopology } from '@trawl/redis';
import { Redis } from 'ioredis';
import { newJobId } from './task-job-id.util.js';
import { jobOptions } from './task-submitter.service.js';
import { TaskQueues } from './task-queues.service.js';

const jobsOf = (n: number) =>
  Array.from({ length: n }, (_, i) => {
    const id = newJobId(QUEUES.scrape);
    return { name: 'scrape', data: { url: `https://a.test/${i}` }, opts: jobOptions(id) };
  });

describe('TaskQueues.addAllOrNothing (real Redis)', () => {
  let redis: TestServer;
  let queues: TaskQueues;
  let admin: Redis;

  beforeAll(async () => {
    redis = await startRedis();
    queues = new TaskQueues({ topology: standaloneRedisTopology(redis.url) });
    admin = new Redis(redis.url);
  });

  afterAll(async () => {
    await queues?.close();
    admin?.disconnect();
    await redis?.stop();
  });

  it('adds every job, waiting, with its id, options and data', async () => {
    const jobs = jobsOf(3);
    const added = await queues.addAllOrNothing(QUEUES.scrape, jobs);
    expect(added.map((j) => j.id)).toEqual(jobs.map((j) => j.opts.jobId));
    for (const [i, job] of added.entries()) {
      const stored = await queues.getJob(jobs[i].opts.jobId);
      expect(stored?.data).toEqual(jobs[i].data);
      expect(stored?.opts).toMatchObject({ attempts: jobs[i].opts.attempts, backoff: jobs[i].opts.backoff });
      expect(await stored?.getState()).toBe('waiting');
      expect(typeof job.timestamp).toBe('number');
    }
  });

  it('sends the inserts inside one MULTI … EXEC, so Redis applies all of them or none', async () => {
    const monitor = await admin.monitor();
    const seen: string[] = [];
    monitor.on('monitor', (_time: string, args: string[]) => seen.push(String(args[0]).toLowerCase()));
    await queues.addAllOrNothing(QUEUES.scrape, jobsOf(5));
    await new Promise((r) => setTimeout(r, 200));
    monitor.disconnect();
    const inserts = seen.filter((c) => c === 'evalsha' || c === 'eval');
    expect(inserts).toHaveLength(5);
    const first = seen.indexOf('multi');
    const exec = seen.indexOf('exec');
    expect(first).toBeGreaterThanOrEqual(0);
    expect(seen.slice(first + 1, exec).filter((c) => c === 'evalsha' || c === 'eval')).toHaveLength(5);
  });

  it('creates no job and rejects when Redis refuses the transaction', async () => {
    const before = await queues.queue(QUEUES.scrape).getWaitingCount();
    await admin.config('SET', 'maxmemory', '1');
    try {
      await expect(queues.addAllOrNothing(QUEUES.scrape, jobsOf(4))).rejects.toThrow();
    } finally {
      await admin.config('SET', 'maxmemory', '0');
    }
    expect(await queues.queue(QUEUES.scrape).getWaitingCount()).toBe(before);
  });
});
