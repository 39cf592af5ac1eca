import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestMicroservice } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/nats-core';
import { Redis } from 'ioredis';
import { loadEnv, TaskServiceEnv } from '@trawl/config';
import { ERROR_HTTP_STATUS, SUBJECTS, TrawlError, type ScrapeResult } from '@trawl/contracts';
import { connectNats, MessagingClient } from '@trawl/messaging';
import { eventually, serveSubject, startNats, type TestServer } from '@trawl/testing';
import { createTaskServiceApp } from '../src/task-service-app.factory.js';
import { startRedisWithReplicas, type RedisWithReplicas } from './support/redis-with-replicas.js';

/** Every key of a job (its hash and sub-keys), in any queue: a batch that left nothing behind leaves this unchanged. */
async function jobKeys(redis: Redis): Promise<string[]> {
  const keys = await redis.keys('bull:*');
  return keys.filter((k) => /:trawl-[a-z-]+:[a-z-]+_[0-9a-f-]{36}/.test(k)).sort();
}

/** The members of every key's outstanding sets (admission). */
async function outstandingIds(redis: Redis): Promise<string[]> {
  const ids: string[] = [];
  for (const key of await redis.keys('*outstanding*')) ids.push(...(await redis.smembers(key)));
  return ids.sort();
}

describe('task-service: accepted means replicated (a master with 2 replicas, REDIS_MIN_REPLICAS_ACK by default)', () => {
  let redis: RedisWithReplicas;
  let admin: Redis;
  let nats: TestServer;
  let nc: NatsConnection;
  let client: MessagingClient;
  let app: INestMicroservice;
  const calls: string[] = [];

  beforeAll(async () => {
    redis = await startRedisWithReplicas(2);
    admin = new Redis(redis.url);
    nats = await startNats();
    nc = await connectNats([nats.url], 'replicated-e2e');
    client = new MessagingClient(nc);
    // The fake extractors count every call: a job that ran is a call.
    serveSubject(nc, SUBJECTS.scrapePage, (data) => {
      const { url } = data as { url: string };
      calls.push(url);
      const result: ScrapeResult = {
        sourceURL: url,
        taskId: 'stand-in',
        edgeId: 'stand-in',
        status: 200,
        rawStatus: 200,
        markdown: '# ok',
        metadata: { title: 'ok', url, engine: 'http', contentType: 'text/html' },
      };
      return result;
    });
    serveSubject(nc, SUBJECTS.searchMaps, (data) => {
      const { q } = data as { q: string };
      calls.push(`maps:${q}`);
      return { data: { organicResults: [] }, q };
    });
    await nc.flush();
    const env = loadEnv(TaskServiceEnv, {
      NATS_URL: nats.url,
      REDIS_URL: redis.url,
      REDIS_REPLICAS_ACK_TIMEOUT_MS: '700',
      SSRF_ALLOW_HOSTS: '127.0.0.1',
      LOG_LEVEL: 'silent',
      TASK_SHUTDOWN_GRACE_MS: '100',
    });
    app = await createTaskServiceApp(env);
    await app.listen();
  });

  afterAll(async () => {
    for (const r of redis?.replicas ?? []) r.resume();
    await app?.close();
    await nc?.close();
    await nats?.stop();
    admin?.disconnect();
    await redis?.stop();
  });

  const urlBatch = (tag: string) => ({
    kind: 'url',
    request: {
      urls: [1, 2, 3, 4, 5].map((i) => `https://site.test/${tag}/${i}`),
      webhook: 'http://127.0.0.1:9/hook',
      type: 'scrape',
      timeout: 25000,
    },
  });
  const mapsBatch = (tag: string) => ({
    kind: 'maps',
    request: { querys: [`${tag} one`, `${tag} two`], webhook: 'http://127.0.0.1:9/hook' },
  });
  // The NATS deadline is far beyond the confirmation's bound: an answer before it is an answer within the bound.
  const submit = (payload: unknown) => client.send(SUBJECTS.taskSubmit, payload as never, { timeoutMs: 15_000 });

  it('answers a batch once its jobs are on a replica, and runs them', async () => {
    const reply = await submit(urlBatch('healthy'));
    expect(reply.jobs).toHaveLength(5);
    await eventually(() => calls.filter((c) => c.includes('/healthy/')).length === 5, 20_000);
    // Done, not only called: a job still active holds a lock key and an admission entry, which would vanish from the
    // next test's listings while it compares them before and after the outage.
    const ids = reply.jobs.map((j) => j.id);
    await eventually(async () => {
      const records = await Promise.all(
        ids.map((jobId) => client.send(SUBJECTS.taskGet, { jobId }, { timeoutMs: 5000 })),
      );
      const outstanding = await outstandingIds(admin);
      return records.every((r) => r.status === 'completed') && !ids.some((id) => outstanding.includes(id));
    }, 20_000);
  });

  it('with the replicas unreachable, answers 503 (retryable) and none of the jobs runs; with them back, the same call is accepted', async () => {
    const before = await jobKeys(admin);
    expect(before.length).toBeGreaterThan(0); // the healthy batch's jobs: the listing sees jobs
    const outstandingBefore = await outstandingIds(admin);
    for (const r of redis.replicas) r.pause();
    let refused: unknown;
    let refusedMaps: unknown;
    try {
      refused = await submit(urlBatch('outage')).catch((e: unknown) => e);
      refusedMaps = await submit(mapsBatch('outage')).catch((e: unknown) => e);
      // Nothing of either batch is left in Redis for a worker to take, now or when a hold would have run out.
      expect(await jobKeys(admin)).toEqual(before);
      expect(await outstandingIds(admin)).toEqual(outstandingBefore);
      await new Promise((r) => setTimeout(r, 1500));
    } finally {
      for (const r of redis.replicas) r.resume();
    }
    for (const e of [refused, refusedMaps]) {
      expect(e).toBeInstanceOf(TrawlError);
      expect(e).toMatchObject({ code: 'SERVICE_UNAVAILABLE', retryable: true });
      expect(ERROR_HTTP_STATUS[(e as TrawlError).code]).toBe(503);
      expect((e as TrawlError).message).toMatch(/replica/);
    }
    expect(calls.filter((c) => c.includes('/outage/') || c.startsWith('maps:outage'))).toEqual([]);

    // The replicas are back (they catch up): the same calls are accepted and their jobs run, once each.
    const reply = await eventually(() => submit(urlBatch('outage')).catch(() => undefined), 20_000, 200);
    expect(reply.jobs).toHaveLength(5);
    const maps = await submit(mapsBatch('outage'));
    expect(maps.jobs).toHaveLength(1);
    await eventually(() => calls.filter((c) => c.includes('/outage/')).length === 5, 20_000);
    await eventually(() => calls.filter((c) => c.startsWith('maps:outage')).length === 2, 20_000);
    expect(calls.filter((c) => c.includes('/outage/')).sort()).toEqual(
      [1, 2, 3, 4, 5].map((i) => `https://site.test/outage/${i}`),
    );
  }, 60_000);
});
