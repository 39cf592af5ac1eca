import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { startRedis, type TestServer } from '@trawl/testing';
import { ApiKeyStore, KEY_STORE_KEYS } from './api-key.store.js';
import { digestKey } from './key-material.util.js';
import { migrateLegacyKeyStore } from './legacy-key-store.migration.js';

const LIMITS = { rate: { points: 600, durationSec: 60 }, concurrency: 20 };

describe('migrateLegacyKeyStore (upgrade to the {store} hash tag)', () => {
  let server: TestServer;
  let redis: Redis;

  beforeAll(async () => {
    server = await startRedis({ persist: false });
    redis = new Redis(server.url);
  });
  afterAll(async () => {
    redis?.disconnect();
    await server?.stop();
  });

  it('moves keys written before the hash tag, after which they still authenticate; a second run moves nothing', async () => {
    const store = new ApiKeyStore(redis);
    const { record, key } = await store.create({ name: 'old', limits: LIMITS });
    // Put it where the previous version kept it.
    for (const k of await redis.keys(`${KEY_STORE_KEYS}*`)) {
      await redis.rename(k, k.replace(KEY_STORE_KEYS, 'trawl:apikey:'));
    }
    expect(await store.findByDigest(digestKey(key))).toBeNull();

    expect(await migrateLegacyKeyStore(redis)).toBe(3);
    expect((await store.findByDigest(digestKey(key)))?.id).toBe(record.id);
    expect((await store.list()).map((r) => r.id)).toEqual([record.id]);
    expect(await migrateLegacyKeyStore(redis)).toBe(0);
  });
});
