import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { QUEUES, SUBJECT_TABLE, type TaskSubmitReply } from '@trawl/contracts';
import { Redis } from 'ioredis';
import { eventually, startRedis, type TestServer } from '@trawl/testing';
import { standaloneRedisTopology } from '@trawl/redis';
import { submissionFingerprint, TaskIdempotency } from './task-idempotency.service.js';
import { TaskQueues } from './task-queues.service.js';

import { TaskSubmitter } from './task-submitter.service.js';

/** Submits as task-service's handler does: the payload checked against its row first (SUBJECT_TABLE.taskSubmit). */
async function submitOverWire(submitter: TaskSubmitter, payload: unknown): ReturnType<TaskSubmitter['submit']> {
  return submitter.submit(SUBJECT_TABLE.taskSubmit.request.parse(payload));
}

const WEBHOOK = 'https://hooks.test/h';
const batch = (urls: string[], idempotencyKey?: string, apiKeyId = 'key-a') => ({
  kind: 'url',
  request: { urls, webhook: WEBHOOK, type: 'scrape' },
  apiKeyId,
  ...(idempotencyKey !== undefined ? { idempotencyKey } : {}),
});

describe('submissionFingerprint', () => {
  it('ignore the order of fields and undefined members, and tell different requests apart', () => {
    const one = submissionFingerprint({
      kind: 'url',
      request: { urls: ['u'], webhook: 'w', type: 'scrape', timeout: 1 },
    });
    const same = submissionFingerprint({
      kind: 'url',
      request: { timeout: 1, type: 'scrape', webhook: 'w', urls: ['u'] },
    });
    const other = submissionFingerprint({
      kind: 'url',
      request: { urls: ['v'], webhook: 'w', type: 'scrape', timeout: 1 },
    });
    expect(same).toBe(one);
    expect(other).not.toBe(one);
  });
});

describe('TaskSubmitter with an Idempotency-Key (real Redis)', () => {
  let redis: TestServer;
  let queues: TaskQueues;
  let submitter: TaskSubmitter;

  beforeAll(async () => {
    redis = await startRedis();
    queues = new TaskQueues({ topology: standaloneRedisTopology(redis.url) });
    submitter = new TaskSubmitter(queues, async () => undefined);
  });

  afterAll(async () => {
    await queues?.close();
    await redis?.stop();
  });

  const scrapeJobs = async () => {
    const counts = await queues.queue(QUEUES.scrape).getJobCounts();
    return Object.values(counts).reduce((a, b) => a + b, 0);
  };

  it('a replay answers the first reply and creates nothing; without a key every call creates jobs', async () => {
    const before = await scrapeJobs();
    const first = await submitOverWire(submitter, batch(['https://site.test/1', 'https://site.test/2'], 'k-1'));
    const again = await submitOverWire(submitter, batch(['https://site.test/1', 'https://site.test/2'], 'k-1'));
    expect(again).toEqual(first);
    expect(await scrapeJobs()).toBe(before + 2);
    await submitOverWire(submitter, batch(['https://site.test/1']));
    await submitOverWire(submitter, batch(['https://site.test/1']));
    expect(await scrapeJobs()).toBe(before + 4);
  });

  it('ten identical requests racing make one set of jobs', async () => {
    const before = await scrapeJobs();
    const replies = await Promise.all(
      Array.from({ length: 10 }, () => submitOverWire(submitter, batch(['https://site.test/race'], 'k-race'))),
    );
    expect(new Set(replies.map((r) => r.jobs[0]?.id)).size).toBe(1);
    expect(await scrapeJobs()).toBe(before + 1);
  });

  it('the same key with another request is IDEMPOTENCY_KEY_REUSED; another API key has its own keys', async () => {
    const first = await submitOverWire(submitter, batch(['https://site.test/a'], 'k-2'));
    await expect(submitOverWire(submitter, batch(['https://site.test/b'], 'k-2'))).rejects.toMatchObject({
      code: 'IDEMPOTENCY_KEY_REUSED',
      field: 'Idempotency-Key',
    });
    const otherKey = await submitOverWire(submitter, batch(['https://site.test/b'], 'k-2', 'key-b'));
    expect(otherKey.jobs[0]?.id).not.toBe(first.jobs[0]?.id);
  });

  it('a refused submission releases its key, so a corrected retry goes through', async () => {
    const refusing = new TaskSubmitter(queues, async () => {
      throw new Error('webhook refused');
    });
    await expect(submitOverWire(refusing, batch(['https://site.test/r'], 'k-3'))).rejects.toThrow('webhook refused');
    // The webhook check runs before the claim; a failure inside the submission releases it too.
    const failing = new TaskSubmitter(
      queues,
      async () => undefined,
      () => 0,
    );
    await expect(submitOverWire(failing, batch(['https://site.test/r'], 'k-3'))).rejects.toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
    });
    const ok = await submitOverWire(submitter, batch(['https://site.test/r'], 'k-3'));
    expect(ok.jobs).toHaveLength(1);
  });

  it('refuses a malformed key, naming the header', async () => {
    await expect(submitOverWire(submitter, batch(['https://site.test/x'], 'with space'))).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      field: 'Idempotency-Key',
    });
    await expect(submitOverWire(submitter, batch(['https://site.test/x'], 'x'.repeat(256)))).rejects.toMatchObject({
      field: 'Idempotency-Key',
    });
  });
});

describe('TaskIdempotency claim (real Redis)', () => {
  let server: TestServer;
  let redis: Redis;

  beforeAll(async () => {
    server = await startRedis();
    redis = new Redis(server.url);
  });
  afterAll(async () => {
    await redis?.quit();
    await server?.stop();
  });

  it('keeps its claim while a submission outlives the claim time: a retry meanwhile waits, nothing is submitted twice', async () => {
    const idempotency = new TaskIdempotency(redis, { windowMs: 60_000, claimMs: 600, waitMs: 10_000, pollMs: 20 });
    const reply = { kind: 'url', jobs: [] } as unknown as TaskSubmitReply;
    let submissions = 0;
    let finish: () => void = () => undefined;
    const slow = () => {
      submissions += 1;
      return new Promise<TaskSubmitReply>((ok) => (finish = () => ok(reply)));
    };
    const first = idempotency.run('key-a', 'idem-slow', 'fp', slow);
    await eventually(() => submissions === 1);
    // Three claim times later (the submission still running), a retry with the key arrives.
    await new Promise((r) => setTimeout(r, 1_800));
    const retry = idempotency.run('key-a', 'idem-slow', 'fp', slow);
    await new Promise((r) => setTimeout(r, 100));
    finish();
    expect(await first).toBe(reply);
    expect(await retry).toEqual(reply);
    expect(submissions).toBe(1);
  });

  it('a claim whose reply was lost and that the client sent again is still its own: it submits at once', async () => {
    // ioredis re-sends a command whose reply a failover lost; the SET had been applied, so the second one finds the
    // claim it made. Here the SET with NX is applied, then sent again, and only the second answer (null) is seen.
    const resent = new Proxy(redis, {
      get(target, prop, receiver) {
        if (prop !== 'set') return Reflect.get(target, prop, receiver) as unknown;
        return async (...args: Parameters<Redis['set']>) => {
          await (target.set as (...a: unknown[]) => Promise<unknown>)(...args);
          return (target.set as (...a: unknown[]) => Promise<unknown>)(...args);
        };
      },
    });
    const idempotency = new TaskIdempotency(resent, { windowMs: 60_000, claimMs: 60_000, waitMs: 2_000, pollMs: 20 });
    const reply = { kind: 'url', jobs: [] } as unknown as TaskSubmitReply;
    let submissions = 0;
    // Read as another request's claim, the call would wait for itself and answer IDEMPOTENCY_KEY_IN_PROGRESS.
    const answer = await idempotency.run('key-a', 'idem-resent', 'fp', async () => {
      submissions += 1;
      return reply;
    });
    expect(answer).toBe(reply);
    expect(submissions).toBe(1);
    // A replay gets the stored reply and submits nothing.
    expect(await idempotency.run('key-a', 'idem-resent', 'fp', async () => reply)).toEqual(reply);
  });
});

describe('TaskIdempotency stored replies (real Redis)', () => {
  let server: TestServer;
  let redis: Redis;

  beforeAll(async () => {
    server = await startRedis();
    redis = new Redis(server.url);
  });
  afterAll(async () => {
    await redis?.quit();
    await server?.stop();
  });

  it('keeps a 10,000-job reply packed (a fraction of its JSON) for the window, and replays it as it was', async () => {
    const idempotency = new TaskIdempotency(redis, { windowMs: 60_000, claimMs: 10_000, waitMs: 1_000, pollMs: 20 });
    const jobs = Array.from({ length: 10_000 }, (_, i) => ({
      id: `job-${i.toString().padStart(5, '0')}-0123456789abcdef`,
      url: `https://shop.example/products/item-${i}?ref=batch`,
      status: 'queued',
    }));
    const reply = { kind: 'url', jobs } as unknown as TaskSubmitReply;
    let submissions = 0;
    const submit = async () => {
      submissions += 1;
      return reply;
    };
    expect(await idempotency.run('key-a', 'idem-big', 'fp', submit)).toBe(reply);
    const stored = (await redis.get(idempotency.redisKey('key-a', 'idem-big'))) ?? '';
    expect(stored.length).toBeLessThan(JSON.stringify(reply).length / 4);
    expect(await redis.pttl(idempotency.redisKey('key-a', 'idem-big'))).toBeGreaterThan(0);
    expect(await idempotency.run('key-a', 'idem-big', 'fp', submit)).toEqual(reply);
    expect(submissions).toBe(1);
  });
});
