import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { startRedis, type TestServer } from '@trawl/testing';
import { ConcurrencyLimiter } from './concurrency.limiter.js';
import { KeyRateLimiter } from './key-rate.limiter.js';

describe('limiters (real Redis, two replicas sharing it)', () => {
  let server: TestServer;
  let a: Redis;
  let b: Redis;

  beforeAll(async () => {
    server = await startRedis();
    a = new Redis(server.url);
    b = new Redis(server.url);
  });

  afterAll(async () => {
    await a?.quit();
    await b?.quit();
    await server?.stop();
  });

  it("counts one key's requests on both replicas against one rate limit", async () => {
    const rate = { points: 3, durationSec: 60 };
    const one = new KeyRateLimiter(a);
    const two = new KeyRateLimiter(b);
    const decisions = [
      await one.consume('k1', rate),
      await two.consume('k1', rate),
      await one.consume('k1', rate),
      await two.consume('k1', rate),
    ];
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false]);
    expect(decisions.map((d) => d.remaining)).toEqual([2, 1, 0, 0]);
    expect(decisions[3].resetSec).toBeGreaterThanOrEqual(1);
    expect(decisions[3].resetSec).toBeLessThanOrEqual(60);
    expect((await one.consume('k2', rate)).allowed).toBe(true);
  });

  it('counts in process without Redis', async () => {
    const limiter = new KeyRateLimiter(null);
    const rate = { points: 1, durationSec: 60 };
    expect((await limiter.consume('k', rate)).allowed).toBe(true);
    expect((await limiter.consume('k', rate)).allowed).toBe(false);
  });

  it('caps in-flight requests across replicas and frees the slot on release', async () => {
    const one = new ConcurrencyLimiter(a, { leaseTtlMs: 60_000 });
    const two = new ConcurrencyLimiter(b, { leaseTtlMs: 60_000 });
    const first = await one.acquire('c1', 2);
    const second = await two.acquire('c1', 2);
    expect(first).not.toBeNull();
    expect(second).not.toBeNull();
    expect(await one.acquire('c1', 2)).toBeNull();
    await second?.release();
    await second?.release(); // idempotent: does not free a slot it does not hold
    const third = await one.acquire('c1', 2);
    expect(third).not.toBeNull();
    expect(await two.acquire('c1', 2)).toBeNull();
    await first?.release();
    await third?.release();
    expect(await a.zcard('trawl:inflight:c1')).toBe(0);
  });

  it("counts a key's live leases on every replica, an expired one not", async () => {
    const one = new ConcurrencyLimiter(a, { leaseTtlMs: 60_000 });
    const two = new ConcurrencyLimiter(b, { leaseTtlMs: 60_000 });
    expect(await one.inFlight('c3')).toBe(0);
    const first = await one.acquire('c3', 5);
    await two.acquire('c3', 5);
    // A lease of a replica that died, past its expiry and not yet swept by an acquire.
    await a.zadd('trawl:inflight:c3', Date.now() - 1_000, 'dead-replica-lease');
    expect(await two.inFlight('c3')).toBe(2);
    expect(await one.inFlight('c4')).toBe(0);
    await first?.release();
    expect(await one.inFlight('c3')).toBe(1);
    const local = new ConcurrencyLimiter(null, { leaseTtlMs: 60_000 });
    await local.acquire('c3', 5);
    expect(await local.inFlight('c3')).toBe(1);
  });

  it('lets a lease that was never released expire (TTL safety)', async () => {
    const limiter = new ConcurrencyLimiter(a, { leaseTtlMs: 1 });
    expect(await limiter.acquire('c2', 1)).not.toBeNull();
    await new Promise((r) => setTimeout(r, 10));
    expect(await limiter.acquire('c2', 1)).not.toBeNull();
  });

  it('caps in process without Redis', async () => {
    const limiter = new ConcurrencyLimiter(null, { leaseTtlMs: 60_000 });
    const lease = await limiter.acquire('c', 1);
    expect(await limiter.acquire('c', 1)).toBeNull();
    await lease?.release();
    expect(await limiter.acquire('c', 1)).not.toBeNull();
  });
});
