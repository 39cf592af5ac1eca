import { describe, expect, it } from '@jest/globals';
import { ApiKeyCache } from './api-key.cache.js';

function counting(result: (digest: string) => string | null) {
  const calls: string[] = [];
  const lookup = async (digest: string) => {
    calls.push(digest);
    return result(digest);
  };
  return { calls, lookup };
}

describe('ApiKeyCache', () => {
  it('reuses a lookup (hit or miss) until its TTL passes', async () => {
    let now = 1000;
    const { calls, lookup } = counting((d) => (d === 'good' ? 'record' : null));
    const cache = new ApiKeyCache(lookup, { ttlMs: 5000, now: () => now });
    expect(await cache.get('good')).toBe('record');
    expect(await cache.get('good')).toBe('record');
    expect(await cache.get('bad')).toBeNull();
    expect(await cache.get('bad')).toBeNull();
    expect(calls).toEqual(['good', 'bad']);
    now += 5000;
    await cache.get('good');
    expect(calls).toEqual(['good', 'bad', 'good']);
  });

  it('looks up again at once after evict', async () => {
    const { calls, lookup } = counting(() => 'record');
    const cache = new ApiKeyCache(lookup, { ttlMs: 60_000 });
    await cache.get('d');
    cache.evict('d');
    await cache.get('d');
    expect(calls).toEqual(['d', 'd']);
  });

  it('shares one lookup between concurrent requests for a digest', async () => {
    const { calls, lookup } = counting(() => 'record');
    const cache = new ApiKeyCache(lookup, { ttlMs: 60_000 });
    await Promise.all([cache.get('d'), cache.get('d'), cache.get('d')]);
    expect(calls).toEqual(['d']);
  });

  it('does not cache a failed lookup', async () => {
    let fail = true;
    const cache = new ApiKeyCache(
      async () => {
        if (fail) throw new Error('redis down');
        return 'record';
      },
      { ttlMs: 60_000 },
    );
    await expect(cache.get('d')).rejects.toThrow('redis down');
    fail = false;
    await expect(cache.get('d')).resolves.toBe('record');
  });

  it('keeps at most maxEntries digests, dropping the oldest', async () => {
    const { calls, lookup } = counting(() => 'record');
    const cache = new ApiKeyCache(lookup, { ttlMs: 60_000, maxEntries: 2 });
    await cache.get('a');
    await cache.get('b');
    await cache.get('c');
    expect(cache.size).toBe(2);
    await cache.get('a');
    expect(calls).toEqual(['a', 'b', 'c', 'a']);
  });

  it('does not cache at all with ttlMs 0', async () => {
    const { calls, lookup } = counting(() => 'record');
    const cache = new ApiKeyCache(lookup, { ttlMs: 0 });
    await cache.get('d');
    await cache.get('d');
    expect(calls).toEqual(['d', 'd']);
  });
});
