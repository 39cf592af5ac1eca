import { Injectable } from '@nestjs/common';
import { LIMITS } from '@trawl/contracts';
import { ConcurrencyLimiter, type ConcurrencyLease } from '@trawl/keys';
import { GatewayRedisService } from '../redis/gateway-redis.service.js';

/** A lease outlives the longest request the gateway serves (the largest timeout plus a margin). */
const LEASE_TTL_MS = LIMITS.maxTimeoutMs + 30_000;

/**
 * Each key's requests in flight, shared by every replica through Redis (per process without it): the one count that
 * KeyLimitsGuard caps and that the queue status reads (GET /usage/queue, Firecrawl's concurrency check).
 */
@Injectable()
export class KeyConcurrency {
  private readonly limiter: ConcurrencyLimiter;

  constructor(redis: GatewayRedisService) {
    this.limiter = new ConcurrencyLimiter(redis.client, { leaseTtlMs: LEASE_TTL_MS });
  }

  /** A slot for one request of `keyId`, or null when it has `cap` in flight already. */
  acquire(keyId: string, cap: number): Promise<ConcurrencyLease | null> {
    return this.limiter.acquire(keyId, cap);
  }

  /** Requests of `keyId` in flight now, the caller's own included when it holds a slot. */
  inFlight(keyId: string): Promise<number> {
    return this.limiter.inFlight(keyId);
  }
}
