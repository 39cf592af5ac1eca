import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { TrawlError } from '@trawl/contracts';
import { KeyRateLimiter, formatRateLimit } from '@trawl/keys';
import type { FastifyReply } from 'fastify';
import type { AuthenticatedRequest } from '../auth/api-key.guard.js';
import { GatewayRedisService } from '../redis/gateway-redis.service.js';
import { KeyConcurrency } from './key-concurrency.service.js';

/**
 * Applies the authenticated key's limits, shared by every replica through Redis (per process without it):
 * - rate: requests per window; the response says where the key stands in `RateLimit-Limit`, `RateLimit-Remaining`,
 *   `RateLimit-Reset` (seconds); over the limit, 429 RATE_LIMITED with `Retry-After` (seconds).
 * - concurrency: requests in flight; at the cap, 429 RATE_LIMITED with `Retry-After: 1`. The slot is released when
 *   the response is done, whether it succeeded, failed or the client went away.
 * Runs after ApiKeyGuard; routes without a principal (@Public) are not limited.
 */
@Injectable()
export class KeyLimitsGuard implements CanActivate {
  private readonly rate: KeyRateLimiter;

  constructor(
    redis: GatewayRedisService,
    private readonly inFlight: KeyConcurrency,
  ) {
    this.rate = new KeyRateLimiter(redis.client);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const principal = http.getRequest<AuthenticatedRequest>().principal;
    if (!principal) return true;
    const reply = http.getResponse<FastifyReply>();
    const { rate, concurrency } = principal.limits;

    const decision = await this.rate.consume(principal.id, rate);
    void reply
      .header('ratelimit-limit', decision.limit)
      .header('ratelimit-remaining', decision.remaining)
      .header('ratelimit-reset', decision.resetSec);
    if (!decision.allowed) {
      void reply.header('retry-after', decision.resetSec);
      throw new TrawlError(
        'RATE_LIMITED',
        `rate limit of ${formatRateLimit(rate)} for this API key exceeded; retry after ${decision.resetSec} s`,
      );
    }

    const lease = await this.inFlight.acquire(principal.id, concurrency);
    if (!lease) {
      void reply.header('retry-after', 1);
      throw new TrawlError(
        'RATE_LIMITED',
        `this API key already has ${concurrency} request(s) in flight, its cap; retry when one finishes`,
      );
    }
    const release = (): void => void lease.release();
    reply.raw.once('close', release);
    // The client may have gone before the listener was attached.
    if (reply.raw.closed || reply.raw.destroyed) release();
    return true;
  }
}
