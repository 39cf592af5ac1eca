import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createRedisClient, redisTopologyFromEnv, type RedisClient } from '@trawl/redis';
import { startRedisCluster, type RedisClusterGroup } from '@trawl/testing';
import { ApiKeyStore, KEY_STORE_KEYS } from './api-key.store.js';
import { ConcurrencyLimiter } from './concurrency.limiter.js';
import { digestKey } from './key-material.util.js';
import { KeyRateLimiter } from './key-rate.limiter.js';

const LIMITS = { rate: { points: 600, durationSec: 60 }, concurrency: 20 };

describe('key store and limits on a Redis Cluster of 3 masters', () => {
  let cluster: RedisClusterGroup;
  let redis: RedisClient;

  beforeAll(async () => {
    cluster = await startRedisCluster({ masters: 3 });
    redis = createRedisClient(redisTopologyFromEnv(cluster.env)!, { name: 'keys-cluster-spec', role: 'command' });
  });
  afterAll(async () => {
    redis?.disconnect();
    await cluster?.stop();
  });

  it('creates, finds, rotates and revokes keys (MULTIs and a script over several keys) with no CROSSSLOT', async () => {
    const store = new ApiKeyStore(redis);
    const { record, key } = await store.create({ name: 'acme', limits: LIMITS });
    expect((await store.findByDigest(digestKey(key)))?.id).toBe(record.id);
    const rotated = await store.rotate(record.id, { webhookSecret: true });
    expect(await store.findByDigest(digestKey(key))).toBeNull();
    expect((await store.findByDigest(digestKey(rotated.key)))?.id).toBe(record.id);
    await store.revoke(record.id);
    expect(await store.findByDigest(digestKey(rotated.key))).toBeNull();
    // Every key of the store sits in the slot of its one hash tag.
    const holder = await cluster.masterOfKey(`${KEY_STORE_KEYS}ids`);
    const held = await cluster.keysByNode(`${KEY_STORE_KEYS}*`);
    expect(held.get(holder.address)?.length).toBeGreaterThan(0);
    for (const [address, keys] of held) if (address !== holder.address) expect(keys).toEqual([]);
  });

  it('counts rate and concurrency limits in the Cluster itself, not in the in-memory fallback', async () => {
    const rate = { points: 2, durationSec: 60 };
    const limiter = new KeyRateLimiter(redis);
    const decisions = [
      await limiter.consume('k1', rate),
      await limiter.consume('k1', rate),
      await limiter.consume('k1', rate),
    ];
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, false]);
    const leases = new ConcurrencyLimiter(redis, { leaseTtlMs: 60_000 });
    expect(await leases.acquire('c1', 1)).not.toBeNull();
    expect(await leases.acquire('c1', 1)).toBeNull();
    const all = [...(await cluster.keysByNode('trawl:*')).values()].flat();
    expect(all.some((k) => k.startsWith('trawl:rl:'))).toBe(true);
    expect(all.some((k) => k.startsWith('trawl:inflight:'))).toBe(true);
  });
});
