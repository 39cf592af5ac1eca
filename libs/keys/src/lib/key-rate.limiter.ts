import type { RedisClient } from '@trawl/redis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { formatRateLimit, type RateLimit } from './rate-limit.parser.js';

/** The outcome of counting one request against a key's rate limit, with what the rate-limit headers report. */
export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the current window ends (rounded up, at least 1). */
  resetSec: number;
}

export const RATE_LIMIT_PREFIX = 'trawl:rl:';

/**
 * Per-key fixed-window rate limits (rate-limiter-flexible). With Redis the count is shared by every gateway replica
 * (one atomic INCR + PEXPIRE per request); if Redis fails, each replica falls back to its own in-memory count rather
 * than refusing traffic. Without Redis the count is per process. Keys with the same limit share one limiter; the
 * limit is part of the Redis key, so changing a key's limit starts a fresh window.
 */
export class KeyRateLimiter {
  private readonly limiters = new Map<string, RateLimiterAbstract>();

  constructor(private readonly redis: RedisClient | null) {}

  get distributed(): boolean {
    return this.redis !== null;
  }

  async consume(keyId: string, rate: RateLimit): Promise<RateDecision> {
    try {
      const res = await this.limiter(rate).consume(keyId, 1);
      return decision(true, rate, res);
    } catch (rejection: unknown) {
      if (rejection instanceof RateLimiterRes) return decision(false, rate, rejection);
      throw rejection;
    }
  }

  private limiter(rate: RateLimit): RateLimiterAbstract {
    const id = formatRateLimit(rate);
    let limiter = this.limiters.get(id);
    if (!limiter) {
      const options = { points: rate.points, duration: rate.durationSec, keyPrefix: `${RATE_LIMIT_PREFIX}${id}` };
      limiter = this.redis
        ? new RateLimiterRedis({
            ...options,
            storeClient: this.redis,
            insuranceLimiter: new RateLimiterMemory(options),
          })
        : new RateLimiterMemory(options);
      this.limiters.set(id, limiter);
    }
    return limiter;
  }
}

function decision(allowed: boolean, rate: RateLimit, res: RateLimiterRes): RateDecision {
  return {
    allowed,
    limit: rate.points,
    remaining: Math.max(0, res.remainingPoints),
    resetSec: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
  };
}
