import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { Job, type IRedisTransaction, type JobJson } from 'bullmq';
import { QUEUES } from '@trawl/contracts';
import { standaloneRedisTopology } from '@trawl/redis';
import { startRedis, type TestServer } from '@trawl/testing';
import { Redis } from 'ioredis';
import {
  batchedScriptLua,
  defineBatchedScripts,
  jobReplies,
  queueInserts,
  recordInserts,
  type RecordedInsert,
} from './task-insert-batches.builder.js';
import { newJobId } from './task-job-id.util.js';
import { TaskQueues } from './task-queues.service.js';
import { jobOptions } from './task-submitter.service.js';

/** Every key of the database with its content; stream entries without their (time-based) ids. */
async function snapshot(redis: Redis): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const key of (await redis.keys('*')).sort()) {
    const type = await redis.type(key);
    if (type === 'string') out[key] = await redis.get(key);
    else if (type === 'hash') out[key] = await redis.hgetall(key);
    else if (type === 'zset') out[key] = await redis.zrange(key, 0, -1, 'WITHSCORES');
    else if (type === 'list') out[key] = await redis.lrange(key, 0, -1);
    else if (type === 'set') out[key] = (await redis.smembers(key)).sort();
    else if (type === 'stream') out[key] = (await redis.xrange(key, '-', '+')).map(([, fields]) => fields);
    else out[key] = type;
  }
  return out;
}

describe('batched inserts (ADR 0018)', () => {
  it('refuses to wrap a script that opens with a shebang line', () => {
    expect(() => batchedScriptLua('#!lua flags=no-writes\nreturn 1')).toThrow(/shebang/);
    expect(batchedScriptLua('return ARGV[1]')).toContain('local function insertOne(KEYS, ARGV)\nreturn ARGV[1]\nend');
  });

  it('groups consecutive inserts with the same command and keys, at most `chunk` a call, in order', () => {
    const sent: [string, unknown[]][] = [];
    const multi = { runCommand: (n: string, a: unknown[]) => sent.push([n, a]) } as unknown as IRedisTransaction;
    const client = {
      scriptsSet: {
        'add:1': { lua: '', numberOfKeys: 2 },
        'trawlBatch:add:1': { lua: '', numberOfKeys: 2 },
        'other:1': { lua: '', numberOfKeys: 1 },
      },
    };
    const add = (keys: string[], job: string): RecordedInsert => ({
      command: 'add:1',
      args: [...keys, job, `${job}-data`],
    });
    const inserts = [
      add(['k1', 'k2'], 'a'),
      add(['k1', 'k2'], 'b'),
      add(['k1', 'k2'], 'c'),
      add(['k1', 'kX'], 'd'),
      { command: 'other:1', args: ['k1', 'e'] },
      add(['k1', 'k2'], 'f'),
    ];
    const calls = queueInserts(client, multi, inserts, 2);
    expect(calls).toEqual([{ batch: 2 }, { batch: 1 }, { batch: 1 }, { single: true }, { batch: 1 }]);
    expect(sent).toEqual([
      ['trawlBatch:add:1', ['k1', 'k2', 2, 'a', 'a-data', 'b', 'b-data']],
      ['trawlBatch:add:1', ['k1', 'k2', 2, 'c', 'c-data']],
      ['trawlBatch:add:1', ['k1', 'kX', 2, 'd', 'd-data']],
      ['other:1', ['k1', 'e']],
      ['trawlBatch:add:1', ['k1', 'k2', 2, 'f', 'f-data']],
    ]);
    // Replies map back to jobs in order; a failed call fails each of its jobs; a short reply is an error.
    const boom = new Error('boom');
    expect(
      jobReplies(calls, [
        [null, ['a', 'b']],
        [null, ['c']],
        [boom, null],
        [null, 'e'],
        [null, [-5]],
      ]),
    ).toEqual([
      [null, 'a'],
      [null, 'b'],
      [null, 'c'],
      [boom, null],
      [null, 'e'],
      [null, -5],
    ]);
    expect(jobReplies([{ batch: 2 }], [[null, ['a']]])[1][0]).toBeInstanceOf(Error);
  });

  it('sends an insert alone, as BullMQ does, when the client holds no batched script for it', () => {
    const sent: string[] = [];
    const multi = { runCommand: (n: string) => sent.push(n) } as unknown as IRedisTransaction;
    const inserts = [{ command: 'add:1', args: ['k', 'a'] }];
    expect(queueInserts({}, multi, inserts, 10)).toEqual([{ single: true }]);
    expect(sent).toEqual(['add:1']);
  });

  describe('against BullMQ inserting one job per script call (real Redis)', () => {
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

    beforeEach(async () => {
      // Each queue writes its meta (version, ...) once ready: let that land before the slate is wiped.
      await Promise.all(Object.values(QUEUES).map((name) => queues.queue(name).waitUntilReady()));
      await new Promise((r) => setTimeout(r, 100));
      await admin.flushall();
    });

    /** Prioritized, standard (no priority), held (delayed) jobs, and one id twice (BullMQ's duplicate path). */
    function jobsJson(): { json: JobJson; id: string }[] {
      const queue = queues.queue(QUEUES.scrape);
      const timestamp = 1_700_000_000_000;
      const ids = Array.from({ length: 7 }, () => newJobId(QUEUES.scrape));
      const specs = [
        { id: ids[0], opts: jobOptions(ids[0], 3) },
        { id: ids[1], opts: jobOptions(ids[1], 1) },
        { id: ids[2], opts: jobOptions(ids[2]) },
        { id: ids[3], opts: { ...jobOptions(ids[3], 2), delay: 30_000 } },
        { id: ids[4], opts: { ...jobOptions(ids[4], 4), delay: 30_000 } },
        { id: ids[5], opts: jobOptions(ids[5], 5) },
        { id: ids[1], opts: jobOptions(ids[1], 9) },
        { id: ids[6], opts: jobOptions(ids[6], 6) },
      ];
      return specs.map(({ id, opts }, i) => ({
        id,
        json: new Job(queue, 'scrape', { url: `https://a.test/${i}`, n: i }, { ...opts, timestamp }, id).asJSON(),
      }));
    }

    it('leaves Redis exactly as one script call per job does, and replies the same per job', async () => {
      const queue = queues.queue(QUEUES.scrape);
      const backend = queue.backend;
      const client = await backend.client;
      const jobs = jobsJson();

      const one = client.multi();
      for (const { json, id } of jobs) await backend.addJobToTransaction(one, json, id);
      const oneReplies = ((await one.exec()) ?? []).map(([err, reply]) => [err, reply]);
      const oneState = await snapshot(admin);
      expect(Object.keys(oneState).length).toBeGreaterThan(jobs.length);

      await admin.flushall();
      const recorder = recordInserts();
      await Promise.all(jobs.map(({ json, id }) => backend.addJobToTransaction(recorder.transaction, json, id)));
      defineBatchedScripts(client, recorder.inserts);
      const batched = client.multi();
      // Batches of 2: several calls per script, and runs split where the script changes.
      const calls = queueInserts(client, batched, recorder.inserts, 2);
      expect(calls.every((c) => 'batch' in c)).toBe(true);
      expect(calls.length).toBeLessThan(jobs.length);
      const batchedReplies = jobReplies(calls, (await batched.exec()) ?? []);

      expect(batchedReplies).toEqual(oneReplies);
      expect(await snapshot(admin)).toEqual(oneState);
    });

    it('addAllOrNothing adds 1,200 jobs in batched calls, each with its id, data and priority', async () => {
      const jobs = Array.from({ length: 1200 }, (_, i) => {
        const id = newJobId(QUEUES.scrape);
        return { name: 'scrape', data: { url: `https://a.test/${i}` }, opts: jobOptions(id, i + 1) };
      });
      const added = await queues.addAllOrNothing(QUEUES.scrape, jobs);
      expect(added.map((j) => j.id)).toEqual(jobs.map((j) => j.opts.jobId));
      expect(await queues.queue(QUEUES.scrape).getPrioritizedCount()).toBe(1200);
      for (const i of [0, 499, 500, 1199]) {
        const stored = await queues.getJob(jobs[i].opts.jobId);
        expect(stored?.data).toEqual(jobs[i].data);
        expect(stored?.priority).toBe(i + 1);
      }
    });
  });
});
