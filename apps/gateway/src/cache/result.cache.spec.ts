import { describe, expect, it } from '@jest/globals';
import { cacheKey, ResultCache, type CacheStore } from './result.cache.js';

/** An in-memory stand-in for the cache's Redis (unit test; the stack test uses a real one). */
function memoryStore(failing = false) {
  const entries = new Map<string, string>();
  const store: CacheStore = {
    getBuffer: async (key) => {
      if (failing) throw new Error('cache away');
      const v = entries.get(key);
      return v === undefined ? null : Buffer.from(v);
    },
    set: async (key, value) => {
      if (failing) throw new Error('cache away');
      entries.set(key, value);
      return 'OK';
    },
  };
  return { store, entries };
}

describe('cacheKey', () => {
  it('is the same for the same request in another field order, and differs by tenant, operation and request', () => {
    const k = cacheKey('search', 'key-a', { q: 'coffee', num: 10 });
    expect(cacheKey('search', 'key-a', { num: 10, q: 'coffee' })).toBe(k);
    expect(cacheKey('search', 'key-b', { q: 'coffee', num: 10 })).not.toBe(k);
    expect(cacheKey('maps', 'key-a', { q: 'coffee', num: 10 })).not.toBe(k);
    expect(cacheKey('search', 'key-a', { q: 'coffee', num: 11 })).not.toBe(k);
  });
});

describe('ResultCache', () => {
  const setup = (options: { maxEntryBytes?: number; failing?: boolean } = {}) => {
    let now = 1_000_000;
    const { store, entries } = memoryStore(options.failing);
    const errors: string[] = [];
    const cache = new ResultCache(store, {
      maxEntryBytes: options.maxEntryBytes ?? 10_000,
      ttlMs: 86_400_000,
      now: () => now,
      onError: (m) => errors.push(m),
    });
    let loads = 0;
    const load = async () => ({ n: ++loads });
    return { cache, entries, errors, load, loads: () => loads, advance: (ms: number) => (now += ms) };
  };

  it('answers a stored result younger than maxAge without loading, with its age', async () => {
    const t = setup();
    expect(await t.cache.through('k', 60_000, true, t.load)).toEqual({ value: { n: 1 }, ageMs: null });
    t.advance(1500);
    expect(await t.cache.through('k', 60_000, true, t.load)).toEqual({ value: { n: 1 }, ageMs: 1500 });
    expect(t.loads()).toBe(1);
  });

  it('loads again past maxAge, and always with maxAge 0 (storing the fresh result)', async () => {
    const t = setup();
    await t.cache.through('k', 0, true, t.load);
    t.advance(5000);
    expect((await t.cache.through('k', 4999, true, t.load)).value).toEqual({ n: 2 });
    expect((await t.cache.through('k', 0, true, t.load)).value).toEqual({ n: 3 });
    expect((await t.cache.through('k', 10, true, t.load)).value).toEqual({ n: 3 });
  });

  it('keeps a fresh result only when told to (store false: answered, read by nobody later)', async () => {
    const t = setup();
    await t.cache.through('k', 60_000, false, t.load);
    expect(t.entries.size).toBe(0);
    expect((await t.cache.through('k', 60_000, true, t.load)).value).toEqual({ n: 2 });
    expect((await t.cache.through('k', 60_000, false, t.load)).ageMs).toBe(0);
    expect(t.loads()).toBe(2);
  });

  it('does not store a result larger than maxEntryBytes', async () => {
    const t = setup({ maxEntryBytes: 5 });
    await t.cache.through('k', 1000, true, t.load);
    expect(t.entries.size).toBe(0);
  });

  it('a cache that fails is a miss, never a failed request', async () => {
    const t = setup({ failing: true });
    expect((await t.cache.through('k', 1000, true, t.load)).value).toEqual({ n: 1 });
    await new Promise((r) => setTimeout(r, 0));
    expect(t.errors.length).toBeGreaterThan(0);
  });
});
