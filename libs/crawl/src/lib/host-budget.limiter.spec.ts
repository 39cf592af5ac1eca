import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createRedisClient, standaloneRedisTopology, type RedisClient } from '@trawl/redis';
import { startRedis, type TestServer } from '@trawl/testing';
import { HostBudgetLimiter } from './host-budget.limiter.js';

/** A budget with its clock in the test's hands (two of them on one Redis are two replicas). */
function limiter(redis: RedisClient, clock: { now: number }): HostBudgetLimiter {
  return new HostBudgetLimiter(redis, () => clock.now);
}

describe('HostBudgetLimiter (real Redis; two limiters stand for two replicas)', () => {
  let server: TestServer;
  let redis: RedisClient;

  beforeAll(async () => {
    server = await startRedis({ persist: false });
    redis = createRedisClient(standaloneRedisTopology(server.url), { name: 'budget-spec', role: 'command' });
  });

  afterAll(async () => {
    redis?.disconnect();
    await server?.stop();
  });

  /** Takes a slot if one is free now: the signal is aborted, so a wait ends at once (undefined). */
  async function take(
    budget: HostBudgetLimiter,
    host: string,
    token: string,
    max: number,
    delayMs = 0,
    slotMs = 10_000,
  ) {
    const now = new AbortController();
    const taken = budget.acquire({ host, maxConcurrency: max, delayMs, slotMs, signal: now.signal }, token);
    // A free slot is held by the first script call; a wait sleeps, and the abort ends it.
    setImmediate(() => now.abort());
    return taken;
  }

  it('holds at most maxConcurrency slots of a host across replicas, and frees them on release', async () => {
    const clock = { now: 1_000_000 };
    const a = limiter(redis, clock);
    const b = limiter(redis, clock);
    expect(await take(a, 'h1', 'a1', 2)).toBe('a1');
    expect(await take(b, 'h1', 'b1', 2)).toBe('b1');
    expect(await take(a, 'h1', 'a2', 2)).toBeUndefined();
    expect(await take(b, 'h2', 'b2', 2)).toBe('b2');
    await a.release('h1', 'a1');
    expect(await take(b, 'h1', 'b3', 2)).toBe('b3');
  });

  it('keeps two starts `delay` apart, and a 429 pushes the next start back', async () => {
    const clock = { now: 2_000_000 };
    const a = limiter(redis, clock);
    const b = limiter(redis, clock);
    // (Delays long enough that the keys' own expiry, in real time, never matters to the test.)
    expect(await take(a, 'h3', 'a1', 5, 100_000)).toBe('a1');
    clock.now += 99_999;
    expect(await take(b, 'h3', 'b1', 5, 100_000)).toBeUndefined();
    clock.now += 1;
    expect(await take(b, 'h3', 'b1', 5, 0)).toBe('b1');
    await a.slowDown('h3', 30_000);
    clock.now += 20_000;
    expect(await take(a, 'h3', 'a2', 5, 0)).toBeUndefined();
    clock.now += 10_001;
    expect(await take(a, 'h3', 'a2', 5, 0)).toBe('a2');
  });

  it('gives back the slot of a holder that died once it expires', async () => {
    const clock = { now: 3_000_000 };
    const a = limiter(redis, clock);
    expect(await take(a, 'h4', 'dead', 1, 0, 60_000)).toBe('dead');
    expect(await take(a, 'h4', 'live', 1, 0, 60_000)).toBeUndefined();
    clock.now += 60_001;
    expect(await take(a, 'h4', 'live', 1, 0, 60_000)).toBe('live');
  });
});
