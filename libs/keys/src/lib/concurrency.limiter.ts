import { randomUUID } from 'node:crypto';
import type { RedisClient } from '@trawl/redis';

/** A held slot; `release` is idempotent. */
export interface ConcurrencyLease {
  release(): Promise<void>;
}

export const CONCURRENCY_PREFIX = 'trawl:inflight:';

/**
 * Takes a slot when fewer than `cap` leases are live: expired leases are dropped first, then the new lease is added
 * with its expiry as score. Time is Redis's own clock (TIME), so replicas' clocks do not matter.
 * KEYS[1] = the key's lease set; ARGV = ttlMs, cap, leaseId. Returns 1 when taken, 0 when full.
 */
const ACQUIRE_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], now + ttl, ARGV[3])
redis.call('PEXPIRE', KEYS[1], ttl)
return 1
`;

/** Live leases of a key (their expiry after Redis's now). KEYS[1] = the key's lease set. Read only. */
const COUNT_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
return redis.call('ZCOUNT', KEYS[1], '(' .. now, '+inf')
`;

export interface ConcurrencyLimiterOptions {
  /**
   * How long a lease lives if it is never released (a replica died mid-request), ms. Longer than the longest request
   * the gateway serves; the slot frees itself after it.
   */
  leaseTtlMs: number;
}

/**
 * In-flight request caps per key. With Redis the count is shared by every gateway replica: a sorted set of leases per
 * key, each with its own expiry (TTL safety: a lease a crashed replica never released stops counting after
 * `leaseTtlMs`, and the set itself expires when idle). If Redis fails the replica counts in memory instead. Without
 * Redis the count is per process.
 */
export class ConcurrencyLimiter {
  private readonly local = new Map<string, number>();

  constructor(
    private readonly redis: RedisClient | null,
    private readonly options: ConcurrencyLimiterOptions,
  ) {}

  /** A lease when `keyId` has fewer than `cap` requests in flight; null when it is at its cap. */
  async acquire(keyId: string, cap: number): Promise<ConcurrencyLease | null> {
    if (this.redis) {
      try {
        return await this.acquireShared(this.redis, keyId, cap);
      } catch {
        // Redis is unreachable: cap this replica's own traffic rather than refuse or admit everything.
      }
    }
    return this.acquireLocal(keyId, cap);
  }

  /** How many requests of `keyId` hold a slot now (every replica's with Redis; this process's without it). */
  async inFlight(keyId: string): Promise<number> {
    if (this.redis) {
      try {
        return Number(await this.redis.eval(COUNT_SCRIPT, 1, CONCURRENCY_PREFIX + keyId));
      } catch {
        // Redis is unreachable: this replica counts its own, as `acquire` does then.
      }
    }
    return this.local.get(keyId) ?? 0;
  }

  private async acquireShared(redis: RedisClient, keyId: string, cap: number): Promise<ConcurrencyLease | null> {
    const setKey = CONCURRENCY_PREFIX + keyId;
    const leaseId = randomUUID();
    const taken = await redis.eval(ACQUIRE_SCRIPT, 1, setKey, this.options.leaseTtlMs, cap, leaseId);
    if (taken !== 1) return null;
    return once(async () => {
      // If Redis is down now, the lease expires on its own after leaseTtlMs.
      await redis.zrem(setKey, leaseId).catch(() => undefined);
    });
  }

  private acquireLocal(keyId: string, cap: number): ConcurrencyLease | null {
    const current = this.local.get(keyId) ?? 0;
    if (current >= cap) return null;
    this.local.set(keyId, current + 1);
    return once(async () => {
      const n = (this.local.get(keyId) ?? 1) - 1;
      if (n <= 0) this.local.delete(keyId);
      else this.local.set(keyId, n);
    });
  }
}

function once(release: () => Promise<void>): ConcurrencyLease {
  let done: Promise<void> | null = null;
  return {
    release() {
      done ??= release();
      return done;
    },
  };
}
