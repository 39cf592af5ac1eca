/** What the cache remembers per digest: the value and when it stops being trusted. */
interface Entry<T> {
  value: Promise<T>;
  expiresAt: number;
}

export interface ApiKeyCacheOptions {
  /** How long a lookup (hit or miss) is reused, ms. 0 turns caching off. */
  ttlMs: number;
  /** Most digests remembered; the oldest is dropped first. */
  maxEntries?: number;
  /** Clock, for tests. */
  now?: () => number;
}

/**
 * A short in-process cache in front of a key lookup, so Redis is not asked on every request. Misses are cached too
 * (a flood of wrong keys costs one lookup per key per TTL); concurrent lookups of one digest share one call; a failed
 * lookup is not cached. `evict` drops a digest at once (the store announces revoked and rotated digests).
 */
export class ApiKeyCache<T> {
  private readonly entries = new Map<string, Entry<T>>();
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(
    private readonly lookup: (digest: string) => Promise<T>,
    private readonly options: ApiKeyCacheOptions,
  ) {
    this.maxEntries = options.maxEntries ?? 10_000;
    this.now = options.now ?? Date.now;
  }

  get(digest: string): Promise<T> {
    const now = this.now();
    const hit = this.entries.get(digest);
    if (hit && hit.expiresAt > now) return hit.value;
    if (hit) this.entries.delete(digest);
    const value = this.lookup(digest);
    if (this.options.ttlMs <= 0) return value;
    const entry: Entry<T> = { value, expiresAt: now + this.options.ttlMs };
    this.entries.set(digest, entry);
    while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    value.catch(() => {
      if (this.entries.get(digest) === entry) this.entries.delete(digest);
    });
    return value;
  }

  evict(digest: string): void {
    this.entries.delete(digest);
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
