import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createRedisClient, standaloneRedisTopology, type RedisClient } from '@trawl/redis';
import { startRedis, type TestServer } from '@trawl/testing';
import { BatchPagesStore } from './batch-pages.store.js';
import { batchPagesDoneKey } from './task-redis-keys.constants.js';

describe('BatchPagesStore (real Redis)', () => {
  let server: TestServer;
  let a: RedisClient;
  let b: RedisClient;

  beforeAll(async () => {
    server = await startRedis({ persist: false });
    const topology = standaloneRedisTopology(server.url);
    a = createRedisClient(topology, { name: 'batch-pages-spec-a', role: 'command' });
    b = createRedisClient(topology, { name: 'batch-pages-spec-b', role: 'command' });
  });

  afterAll(async () => {
    a?.disconnect();
    b?.disconnect();
    await server?.stop();
  });

  it('counts a job finished twice (a redelivery after a crash) once, and is complete at the total', async () => {
    const store = new BatchPagesStore(a, 60_000);
    expect(await store.finish('b1', 'job-1', 2)).toEqual({ counted: true, finished: 1, complete: false });
    expect(await store.finish('b1', 'job-1', 2)).toEqual({ counted: false, finished: 1, complete: false });
    expect(await store.finish('b1', 'job-2', 2)).toEqual({ counted: true, finished: 2, complete: true });
    // The last page's outcome published again: still complete (its completed event is re-sent under its stable id).
    expect(await store.finish('b1', 'job-2', 2)).toEqual({ counted: false, finished: 2, complete: true });
  });

  it('across replicas finishing pages at once, exactly one counted add completes the batch', async () => {
    const replicas = [new BatchPagesStore(a, 60_000), new BatchPagesStore(b, 60_000)];
    const total = 40;
    // Every page finished by both replicas (each outcome published twice), interleaved.
    const results = await Promise.all(
      Array.from({ length: total * 2 }, (_, i) => replicas[i % 2].finish('b2', `job-${Math.floor(i / 2)}`, total)),
    );
    expect(results.filter((r) => r.counted)).toHaveLength(total);
    expect(results.filter((r) => r.counted && r.complete)).toHaveLength(1);
    expect(await a.scard(batchPagesDoneKey('b2'))).toBe(total);
  });

  it("keeps one batch's count apart from another's and lets the set expire", async () => {
    const store = new BatchPagesStore(a, 60_000);
    await store.finish('b3', 'job-1', 1);
    expect(await store.finish('b4', 'job-1', 2)).toEqual({ counted: true, finished: 1, complete: false });
    const ttl = await a.pttl(batchPagesDoneKey('b4'));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });
});
