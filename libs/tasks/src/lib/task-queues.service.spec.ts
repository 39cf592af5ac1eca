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
    const seen: { command: string; args: string }[] = [];
    monitor.on('monitor', (_time: string, args: string[]) =>
      seen.push({ command: String(args[0]).toLowerCase(), args: args.slice(1).join(' ') }),
    );
    const jobs = jobsOf(5);
    await queues.addAllOrNothing(QUEUES.scrape, jobs);
    await new Promise((r) => setTimeout(r, 200));
    monitor.disconnect();
    const isInsert = (c: { command: string }) => c.command === 'evalsha' || c.command === 'eval';
    const first = seen.findIndex((c) => c.command === 'multi');
    const exec = seen.findIndex((c) => c.command === 'exec');
    expect(first).toBeGreaterThanOrEqual(0);
    // Each of the 5 inserts (its job id) is sent between MULTI and EXEC, and none outside (ADR 0018: in batches).
    const inside = seen.slice(first + 1, exec).filter(isInsert);
    const outside = [...seen.slice(0, first), ...seen.slice(exec + 1)].filter(isInsert);
    for (const job of jobs) {
      expect(inside.filter((c) => c.args.includes(job.opts.jobId))).toHaveLength(1);
      expect(outside.filter((c) => c.args.includes(job.opts.jobId))).toHaveLength(0);
    }
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
