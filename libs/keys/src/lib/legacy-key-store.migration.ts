import { Cluster } from 'ioredis';
import type { RedisClient } from '@trawl/redis';
import { KEY_STORE_KEYS, LEGACY_KEY_STORE_KEYS } from './api-key.store.js';

/**
 * The one-time move of an upgrade: the key store's keys from `trawl:apikey:{id,digest}:…` and `trawl:apikey:ids`
 * (before the `{store}` hash tag) to `trawl:apikey:{store}:…`. Keys already under the new names win. Safe to run
 * again; returns how many keys moved. Only a standalone server or Sentinel master ever held the legacy layout.
 */
export async function migrateLegacyKeyStore(redis: RedisClient): Promise<number> {
  if (redis instanceof Cluster)
    throw new Error('the legacy key store layout is only ever on a standalone or Sentinel master');
  let moved = 0;
  const legacy: string[] = [];
  for (const pattern of ['id:*', 'digest:*', 'ids']) {
    let cursor = '0';
    do {
      const [next, batch] = await redis.scan(cursor, 'MATCH', `${LEGACY_KEY_STORE_KEYS}${pattern}`, 'COUNT', 1000);
      legacy.push(...batch);
      cursor = next;
    } while (cursor !== '0');
  }
  for (const key of legacy) {
    const target = `${KEY_STORE_KEYS}${key.slice(LEGACY_KEY_STORE_KEYS.length)}`;
    if (key === `${LEGACY_KEY_STORE_KEYS}ids`) {
      await redis.sunionstore(target, target, key);
      await redis.del(key);
    } else if ((await redis.renamenx(key, target)) === 0) {
      await redis.del(key);
    }
    moved += 1;
  }
  return moved;
}
