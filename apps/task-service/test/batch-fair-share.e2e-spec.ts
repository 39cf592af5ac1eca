import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestMicroservice } from '@nestjs/common';
import type { NatsConnection, Subscription } from '@nats-io/nats-core';
import { Redis } from 'ioredis';
import { loadEnv, TaskServiceEnv } from '@trawl/config';
import { SUBJECTS, type TaskFinishedEvent } from '@trawl/contracts';
import { connectNats, MessagingClient } from '@trawl/messaging';
import { outstandingSetKey, QUEUE_PREFIXES } from '@trawl/tasks';
import { eventually, serveSubject, startNats, startRedis, type TestServer } from '@trawl/testing';
import { createTaskServiceApp } from '../src/task-service-app.factory.js';

const WEBHOOK = 'http://127.0.0.1:9/hook';
/** The default cap of outstanding jobs per key in this suite. */
const CAP = 100;
/** Key A's own cap (a key store's `maxOutstanding`, sent by the gateway): room for its twenty batches. */
const CAP_A = 1000;
const MAPS_CONCURRENCY = 2;

/**
 * Issue 19, High 3 (ADR 0021): maps and search batches count each query against the per-key cap and give their
 * queries the key's fair-share positions. task-service in process on real Redis and NATS (JetStream); a stand-in maps
 * extractor on the real subject records the queries in the order it answers them. It holds its answers until told,
 * so key A's first queries are running (and A's whole backlog queued) when key B submits: order, not time, decides.
 */
describe('maps and search batches under the per-key cap and fair share (in-process task-service, real Redis and NATS)', () => {
  let redis: TestServer;
  let nats: TestServer;
  let nc: NatsConnection;
  let client: MessagingClient;
  let app: INestMicroservice;
  let outcomesSub: Subscription;
  /** Queries answered by the stand-in extractor, in order. */
  const answered: string[] = [];
  /** Queries the stand-in extractor was asked, in order. */
  const asked: string[] = [];
  const outcomes: TaskFinishedEvent[] = [];
  let openGate: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (openGate = resolve));
  /** Key C's queries are held until the end, so none finishes (and stops counting) while the cap is tried. */
  let openGateC: () => void = () => undefined;
  const gateC = new Promise<void>((resolve) => (openGateC = resolve));

  beforeAll(async () => {
    redis = await startRedis();
    nats = await startNats();
    nc = await connectNats([nats.url], 'batch-fair-share-e2e');
    client = new MessagingClient(nc);
    serveSubject(nc, SUBJECTS.searchMaps, async (data) => {
      const { q } = data as { q: string };
      asked.push(q);
      await (q.startsWith('c-') ? gateC : gate);
      answered.push(q);
      return { data: { searchParameters: { q }, organicResults: [] } };
    });
    outcomesSub = nc.subscribe(SUBJECTS.taskFinished, {
      callback: (err, msg) => {
        if (!err) outcomes.push(msg.json<TaskFinishedEvent>());
      },
    });
    await nc.flush();
    const env = loadEnv(TaskServiceEnv, {
      NATS_URL: nats.url,
      REDIS_URL: redis.url,
      SSRF_ALLOW_HOSTS: '127.0.0.1',
      LOG_LEVEL: 'silent',
      TASK_SHUTDOWN_GRACE_MS: '100',
      TASK_CONCURRENCY_MAPS: String(MAPS_CONCURRENCY),
      TASK_MAX_OUTSTANDING_PER_KEY: String(CAP),
    });
    app = await createTaskServiceApp(env);
    await app.listen();
  });

  afterAll(async () => {
    openGate();
    openGateC();
    outcomesSub?.unsubscribe();
    await app?.close();
    await nc?.close();
    await nats?.stop();
    await redis?.stop();
  });

  const submitMaps = (apiKeyId: string, querys: string[], maxOutstanding?: number) =>
    client.send(
      SUBJECTS.taskSubmit,
      {
        kind: 'maps',
        request: { querys, ll: '@40.7,-74.0,14z', webhook: WEBHOOK },
        apiKeyId,
        ...(maxOutstanding !== undefined ? { maxOutstanding } : {}),
      } as never,
      { timeoutMs: 20_000 },
    );
  const submitSearch = (apiKeyId: string, querys: string[]) =>
    client.send(SUBJECTS.taskSubmit, { kind: 'search', request: { querys, webhook: WEBHOOK }, apiKeyId } as never, {
      timeoutMs: 20_000,
    });
  const names = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${i}`);

  it("key A's twenty 50-query batches do not hold back key B's 5-query batch: B is done within the first 15 answered queries", async () => {
    for (let b = 0; b < 20; b++) {
      const { jobs } = await submitMaps('key-a', names(`a${b}`, 50), CAP_A);
      expect(jobs).toHaveLength(1);
    }
    // A's first queries are running (held by the stand-in) and the rest of its 1,000 are queued before B asks.
    await eventually(() => asked.filter((q) => q.startsWith('a')).length >= MAPS_CONCURRENCY, 20_000);
    const b = await submitMaps('key-b', names('b', 5));
    openGate();
    await eventually(() => answered.filter((q) => q.startsWith('b-')).length === 5, 60_000);
    const lastB = Math.max(...names('b', 5).map((q) => answered.indexOf(q)));
    expect(lastB).toBeLessThan(15);

    // Every batch still completes, each query answered once, and both keys' counts drain to zero.
    const ids = new Set([b.jobs[0].id]);
    await eventually(() => outcomes.filter((o) => o.apiKeyId === 'key-a').length >= 20, 120_000);
    await eventually(() => outcomes.some((o) => ids.has(o.task.taskId)), 10_000);
    expect(outcomes.find((o) => ids.has(o.task.taskId))?.event).toBe('task.completed');
    expect(new Set(answered.filter((q) => q.startsWith('a'))).size).toBe(1000);
    const admin = new Redis(redis.url);
    try {
      for (const key of ['key-a', 'key-b']) {
        const counts = await Promise.all(QUEUE_PREFIXES.map((p) => admin.scard(outstandingSetKey(p, key))));
        expect(counts.reduce((x, y) => x + y, 0)).toBe(0);
      }
    } finally {
      admin.disconnect();
    }
  }, 180_000);

  it(`refuses a 101-query batch under a cap of ${CAP} (RATE_LIMITED, nothing queued) and admits 100 queries`, async () => {
    await expect(submitMaps('key-c', names('c', CAP + 1))).rejects.toMatchObject({
      code: 'RATE_LIMITED',
      message: expect.stringMatching(new RegExp(`at most ${CAP}`)),
    });
    await expect(submitSearch('key-c', names('c', CAP + 1))).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    const admitted = await submitMaps('key-c', names('c', CAP));
    expect(admitted.jobs).toHaveLength(1);
    // The 100 queries hold the whole cap: not one more query, of any batch, is admitted.
    await expect(submitSearch('key-c', ['one-more'])).rejects.toMatchObject({ code: 'RATE_LIMITED' });
  });
});
