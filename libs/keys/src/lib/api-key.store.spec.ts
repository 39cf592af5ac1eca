import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { freePort, startRedis, type TestServer } from '@trawl/testing';
import { ApiKeyStore, KEY_STORE_PREFIX } from './api-key.store.js';
import { subscribeKeyInvalidations } from './key-invalidations.js';
import { digestKey } from './key-material.js';
import { webhookSecretForKey } from './webhook-secret.js';

const LIMITS = { rate: { points: 600, durationSec: 60 }, concurrency: 20 };

describe('ApiKeyStore (real Redis)', () => {
  let server: TestServer;
  let redis: Redis;
  let store: ApiKeyStore;

  beforeAll(async () => {
    server = await startRedis();
    redis = new Redis(server.url);
    store = new ApiKeyStore(redis);
  });

  afterAll(async () => {
    await redis?.quit();
    await server?.stop();
  });

  async function everythingStored(): Promise<string> {
    const keys = await redis.keys(`${KEY_STORE_PREFIX}*`);
    const parts: string[] = [...keys];
    for (const k of keys) {
      const type = await redis.type(k);
      if (type === 'hash') parts.push(...Object.values(await redis.hgetall(k)));
      else if (type === 'string') parts.push((await redis.get(k)) ?? '');
      else if (type === 'set') parts.push(...(await redis.smembers(k)));
    }
    return parts.join('\n');
  }

  it('creates a key with a name, limits and a whsec_ secret, storing only its SHA-256 digest', async () => {
    const { key, record } = await store.create({ name: 'acme', limits: LIMITS });
    expect(key).toMatch(/^trawl_[A-Za-z0-9_-]{43}$/);
    expect(record).toMatchObject({ name: 'acme', limits: LIMITS, digest: digestKey(key) });
    expect(record.id).toMatch(/^key_[0-9a-f]{16}$/);
    expect(record.webhookSecret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(record.webhookSecret.slice(6), 'base64').length).toBeGreaterThanOrEqual(24);
    const stored = await everythingStored();
    expect(stored).not.toContain(key);
    expect(stored).toContain(digestKey(key));
    expect(await store.findByDigest(digestKey(key))).toEqual(record);
  });

  it('lists every key, revoked ones marked', async () => {
    const a = await store.create({ name: 'list-a', limits: LIMITS });
    const b = await store.create({ name: 'list-b', limits: { rate: { points: 5, durationSec: 1 }, concurrency: 1 } });
    await store.revoke(b.record.id);
    const listed = await store.list();
    expect(listed.find((r) => r.id === a.record.id)?.revokedAt).toBeUndefined();
    expect(listed.find((r) => r.id === b.record.id)).toMatchObject({
      name: 'list-b',
      limits: { rate: { points: 5, durationSec: 1 }, concurrency: 1 },
      revokedAt: expect.any(String),
    });
  });

  it('rotates: the new key works, the old one stops at once, id, limits and secret stay', async () => {
    const first = await store.create({ name: 'rotating', limits: LIMITS });
    const second = await store.rotate(first.record.id);
    expect(second.key).not.toBe(first.key);
    expect(second.record).toMatchObject({ id: first.record.id, name: 'rotating', limits: LIMITS, webhookSecret: first.record.webhookSecret });
    expect(await store.findByDigest(digestKey(first.key))).toBeNull();
    expect((await store.findByDigest(digestKey(second.key)))?.id).toBe(first.record.id);
    const third = await store.rotate(first.record.id, { webhookSecret: true });
    expect(third.record.webhookSecret).not.toBe(first.record.webhookSecret);
  });

  it('revokes: the key no longer authenticates and cannot be rotated; its secret is still readable', async () => {
    const { key, record } = await store.create({ name: 'revoked', limits: LIMITS });
    await store.revoke(record.id);
    expect(await store.findByDigest(digestKey(key))).toBeNull();
    await expect(store.rotate(record.id)).rejects.toThrow(/revoked/);
    expect(await store.webhookSecret(record.id)).toBe(record.webhookSecret);
  });

  it('refuses to rotate or revoke an unknown id', async () => {
    await expect(store.rotate('key_0000000000000000')).rejects.toThrow(/no key/);
    await expect(store.revoke('key_0000000000000000')).rejects.toThrow(/no key/);
  });

  it('announces revoked and rotated-away digests to subscribers', async () => {
    const seen: string[] = [];
    const subscription = await subscribeKeyInvalidations(redis, (d) => seen.push(d));
    expect(subscription.subscribed).toBe(true);
    try {
      const a = await store.create({ name: 'announce-a', limits: LIMITS });
      const b = await store.create({ name: 'announce-b', limits: LIMITS });
      await store.revoke(a.record.id);
      await store.rotate(b.record.id);
      // Pub/sub delivery is asynchronous: a round trip on the subscriber's server orders it after the publishes.
      await redis.ping();
      for (let i = 0; i < 50 && seen.length < 2; i++) await new Promise((r) => setTimeout(r, 20));
      expect(seen).toEqual([digestKey(a.key), digestKey(b.key)]);
    } finally {
      await subscription.close();
    }
  });

  it('goes on without the subscription while Redis is away, and closes without waiting for it', async () => {
    const away = new Redis(`redis://127.0.0.1:${await freePort()}`, { lazyConnect: true });
    const subscription = await subscribeKeyInvalidations(away, () => undefined, { subscribeTimeoutMs: 100 });
    expect(subscription.subscribed).toBe(false);
    await subscription.close(); // a leaked reconnecting connection would keep the test process alive
    away.disconnect();
  });

  it('gives the dispatcher a key id\'s webhook secret, or the fallback for bootstrap keys and no store', async () => {
    const { record } = await store.create({ name: 'hooks', limits: LIMITS });
    expect(await webhookSecretForKey(redis, record.id, 'whsec_fallback')).toBe(record.webhookSecret);
    expect(await webhookSecretForKey(redis, '0123456789abcdef', 'whsec_fallback')).toBe('whsec_fallback');
    expect(await webhookSecretForKey(redis, undefined, 'whsec_fallback')).toBe('whsec_fallback');
    expect(await webhookSecretForKey(null, record.id, 'whsec_fallback')).toBe('whsec_fallback');
  });
});
