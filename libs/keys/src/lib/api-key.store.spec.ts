import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { freePort, startRedis, type TestServer } from '@trawl/testing';
import { ApiKeyStore, KEY_STORE_KEYS } from './api-key.store.js';
import { subscribeKeyInvalidations } from './key-invalidations.subscriber.js';
import { digestKey } from './key-material.util.js';
import { SecretCipher } from './secret-cipher.service.js';
import { deriveWebhookSecret, webhookSecretForKey } from './webhook-secret.util.js';

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
    const keys = await redis.keys(`${KEY_STORE_KEYS}*`);
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
    expect(second.record).toMatchObject({
      id: first.record.id,
      name: 'rotating',
      limits: LIMITS,
      webhookSecret: first.record.webhookSecret,
    });
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

  it("gives the dispatcher a store key's own secret, a secret derived per id for other keys, the master for none", async () => {
    const master = `whsec_${Buffer.from('master-secret-for-the-store-spec-0123').toString('base64')}`;
    const { record } = await store.create({ name: 'hooks', limits: LIMITS });
    expect(await webhookSecretForKey(redis, record.id, master)).toBe(record.webhookSecret);
    expect(await webhookSecretForKey(redis, '0123456789abcdef', master)).toBe(
      deriveWebhookSecret(master, '0123456789abcdef'),
    );
    expect(await webhookSecretForKey(redis, undefined, master)).toBe(master);
    expect(await webhookSecretForKey(null, record.id, master)).toBe(deriveWebhookSecret(master, record.id));
  });

  describe('with KEYS_ENCRYPTION_KEY (secrets encrypted at rest)', () => {
    const cipher = new SecretCipher(randomBytes(32).toString('base64'));

    it('stores the webhook secret sealed, never in clear, and reads it back', async () => {
      const sealing = new ApiKeyStore(redis, cipher);
      const { record } = await sealing.create({ name: 'sealed', limits: LIMITS });
      const stored = await redis.hget(`${KEY_STORE_KEYS}id:${record.id}`, 'webhookSecret');
      expect(stored).toMatch(/^enc:v1:/);
      expect(await everythingStored()).not.toContain(record.webhookSecret);
      expect(await sealing.webhookSecret(record.id)).toBe(record.webhookSecret);
      expect((await sealing.get(record.id))?.webhookSecret).toBe(record.webhookSecret);
      expect(await webhookSecretForKey(redis, record.id, 'whsec_unused', cipher)).toBe(record.webhookSecret);
      // A store without the key (the gateway) reads the record, not the secret; asking for the secret is an error.
      expect((await store.get(record.id))?.webhookSecret).toBe('');
      await expect(store.webhookSecret(record.id)).rejects.toThrow(/KEYS_ENCRYPTION_KEY is not set/);
      // Another key does not open it.
      const other = new ApiKeyStore(redis, new SecretCipher(randomBytes(32).toString('base64')));
      await expect(other.webhookSecret(record.id)).rejects.toThrow(/does not open/);
    });

    it('reads a secret written in clear before encryption, seals it on the next write and with sealSecrets()', async () => {
      const { record: old } = await store.create({ name: 'written-in-clear', limits: LIMITS });
      const { record: older } = await store.create({ name: 'also-in-clear', limits: LIMITS });
      const sealing = new ApiKeyStore(redis, cipher);
      expect(await sealing.webhookSecret(old.id)).toBe(old.webhookSecret);

      await sealing.rotate(old.id);
      expect(await redis.hget(`${KEY_STORE_KEYS}id:${old.id}`, 'webhookSecret')).toMatch(/^enc:v1:/);
      expect(await sealing.webhookSecret(old.id)).toBe(old.webhookSecret);

      expect(await redis.hget(`${KEY_STORE_KEYS}id:${older.id}`, 'webhookSecret')).toBe(older.webhookSecret);
      expect(await sealing.sealSecrets()).toBeGreaterThanOrEqual(1);
      expect(await sealing.sealSecrets()).toBe(0);
      expect(await everythingStored()).not.toContain(older.webhookSecret);
      expect(await sealing.webhookSecret(older.id)).toBe(older.webhookSecret);
    });

    it('refuses to rotate a key whose secret is sealed without the encryption key, and leaves it as it was', async () => {
      const sealing = new ApiKeyStore(redis, cipher);
      const { record } = await sealing.create({ name: 'sealed-rotate', limits: LIMITS });
      const before = await redis.hgetall(`${KEY_STORE_KEYS}id:${record.id}`);
      await expect(store.rotate(record.id)).rejects.toThrow(/sealed webhook secret and KEYS_ENCRYPTION_KEY is not set/);
      await expect(store.rotate(record.id, { webhookSecret: true })).rejects.toThrow(/KEYS_ENCRYPTION_KEY/);
      expect(await redis.hgetall(`${KEY_STORE_KEYS}id:${record.id}`)).toEqual(before);
      expect(await sealing.webhookSecret(record.id)).toBe(record.webhookSecret);
      // With the key, the same rotation goes through and keeps the secret.
      await sealing.rotate(record.id);
      expect(await sealing.webhookSecret(record.id)).toBe(record.webhookSecret);
    });

    it('binds a sealed secret to its key id: copied into another record it does not open', async () => {
      const sealing = new ApiKeyStore(redis, cipher);
      const a = (await sealing.create({ name: 'a', limits: LIMITS })).record;
      const b = (await sealing.create({ name: 'b', limits: LIMITS })).record;
      const sealedA = (await redis.hget(`${KEY_STORE_KEYS}id:${a.id}`, 'webhookSecret')) as string;
      await redis.hset(`${KEY_STORE_KEYS}id:${b.id}`, 'webhookSecret', sealedA);
      await expect(sealing.webhookSecret(b.id)).rejects.toThrow(/does not open/);
    });
  });
});
