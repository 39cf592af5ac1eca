import { createHash } from 'node:crypto';
import { canonicalJson } from '@trawl/contracts';

/** The synchronous operations whose results are cached (`maxAge`). */
export const CACHED_OPERATIONS = ['search', 'maps', 'extract', 'scrape'] as const;
export type CachedOperation = (typeof CACHED_OPERATIONS)[number];

/** The part of a Redis client the cache uses. */
export interface CacheStore {
  getBuffer(key: string): Promise<Buffer | null>;
  set(key: string, value: string, px: 'PX', ttlMs: number): Promise<unknown>;
}

export interface ResultCacheOptions {
  /** Largest entry stored (its JSON), bytes; larger results are answered and not stored. */
  maxEntryBytes: number;
  /** How long an entry is kept, ms: the largest `maxAge` (an older entry could never be answered). */
  ttlMs: number;
  now?: () => number;
  onError?: (message: string, error: unknown) => void;
}

/** A result and, when it came from the cache, its age. */
export interface CachedResult<T> {
  value: T;
  /** ms since the stored result was fetched; null: fetched now. */
  ageMs: number | null;
}

/**
 * The cache key of a request: the operation, the tenant (API key id) and a hash of the request as the extractor
 * gets it (defaults applied, `maxAge` left out), so two keys never share an entry and the same request in another
 * field order is the same entry.
 */
export function cacheKey(operation: CachedOperation, tenant: string, request: object): string {
  const hash = createHash('sha256').update(canonicalJson(request)).digest('base64url');
  return `trawl:cache:v1:${operation}:${tenant}:${hash}`;
}

/**
 * Results of the synchronous operations kept in their own Redis for `maxAge`: a stored result younger than the
 * caller's `maxAge` is answered without asking the upstream; otherwise the upstream is asked, and its result stored
 * when the call says so (`cacheUse`: only what a caller or the operator asked to keep, ADR 0021). Entries are
 * `{ at, value }` JSON with a TTL; larger than
 * `maxEntryBytes` they are not stored. The cache never fails a request: a Redis error is a miss (and is reported).
 */
export class ResultCache {
  private readonly now: () => number;

  constructor(
    private readonly store: CacheStore,
    private readonly options: ResultCacheOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  /**
   * A stored result at most `maxAgeMs` old (0: none is read), else `load()`'s, which is kept when `store` says so.
   */
  async through<T>(key: string, maxAgeMs: number, store: boolean, load: () => Promise<T>): Promise<CachedResult<T>> {
    if (maxAgeMs > 0) {
      const hit = await this.read<T>(key);
      if (hit && hit.ageMs <= maxAgeMs) return hit;
    }
    const at = this.now();
    const value = await load();
    if (store) this.write(key, at, value);
    return { value, ageMs: null };
  }

  private async read<T>(key: string): Promise<{ value: T; ageMs: number } | undefined> {
    try {
      const raw = await this.store.getBuffer(key);
      if (!raw) return undefined;
      const entry = JSON.parse(raw.toString('utf8')) as { at?: unknown; value?: unknown };
      if (typeof entry.at !== 'number' || entry.value === undefined) return undefined;
      return { value: entry.value as T, ageMs: Math.max(0, this.now() - entry.at) };
    } catch (e) {
      this.options.onError?.('result cache read failed (answered from the upstream)', e);
      return undefined;
    }
  }

  private write(key: string, at: number, value: unknown): void {
    const text = JSON.stringify({ at, value });
    if (Buffer.byteLength(text) > this.options.maxEntryBytes) return;
    this.store
      .set(key, text, 'PX', this.options.ttlMs)
      .catch((e: unknown) => this.options.onError?.('result cache write failed', e));
  }
}
