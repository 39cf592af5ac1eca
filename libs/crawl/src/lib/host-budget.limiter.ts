import type { RedisClient } from '@trawl/redis';
import { hostBudgetKeys } from './crawl-redis-keys.constants.js';

/**
 * Takes a slot: drops expired slots (their holder died), then if fewer than `max` are held and the host's next start
 * has come, holds one until `now + slotMs` and moves the next start `delay` later. Answers 0 (held) or how long to
 * wait, ms.
 */
const ACQUIRE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
local now = tonumber(ARGV[1])
local nextAt = tonumber(redis.call('GET', KEYS[2]) or '0')
if nextAt > now then return nextAt - now end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then
  local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  local wait = math.floor(tonumber(first[2]) - now)
  if wait < 1 then wait = 1 end
  if wait > 50 then wait = 50 end
  return wait
end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[5]), ARGV[4])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[5]) * 2)
local delay = tonumber(ARGV[3])
if delay > 0 then redis.call('SET', KEYS[2], now + delay, 'PX', delay + 1000) end
return 0
`;

/** Pushes the host's next start to `now + ms` unless it is already later (429, Retry-After). */
const SLOW_DOWN = `
local at = tonumber(ARGV[1]) + tonumber(ARGV[2])
local cur = tonumber(redis.call('GET', KEYS[1]) or '0')
if at > cur then redis.call('SET', KEYS[1], at, 'PX', tonumber(ARGV[2]) + 1000) end
return 1
`;

export interface HostBudgetRequest {
  host: string;
  /** Most requests in flight to the host, across the fleet. */
  maxConcurrency: number;
  /** Least time between two starts, ms (the crawl's delay, robots' Crawl-delay, whichever is longer). */
  delayMs: number;
  /** How long the slot is held if its holder never gives it back (it died), ms. */
  slotMs: number;
  /** Stop waiting (the crawl ended). */
  signal?: AbortSignal;
}

/**
 * Politeness per host shared by every replica: one budget in Redis per host (ADR 0026). A request to a host takes a
 * slot first and gives it back when done; the slots held are never more than `maxConcurrency` and two starts are at
 * least `delayMs` apart. A slot whose holder died expires after `slotMs`.
 */
export class HostBudgetLimiter {
  constructor(
    private readonly redis: RedisClient,
    private readonly now: () => number = Date.now,
  ) {}

  /** Waits for a slot; answers its token (for `release`), or undefined when `signal` ended the wait. */
  async acquire(request: HostBudgetRequest, token: string): Promise<string | undefined> {
    const keys = hostBudgetKeys(request.host);
    for (;;) {
      if (request.signal?.aborted) return undefined;
      const wait = Number(
        await this.redis.eval(
          ACQUIRE,
          2,
          keys.slots,
          keys.next,
          this.now(),
          request.maxConcurrency,
          request.delayMs,
          token,
          request.slotMs,
        ),
      );
      if (wait <= 0) return token;
      await sleep(Math.min(wait, 250), request.signal);
    }
  }

  async release(host: string, token: string): Promise<void> {
    await this.redis.zrem(hostBudgetKeys(host).slots, token);
  }

  /** The host asked to slow down (429 / Retry-After): no request starts for `ms`. */
  async slowDown(host: string, ms: number): Promise<void> {
    await this.redis.eval(SLOW_DOWN, 1, hostBudgetKeys(host).next, this.now(), Math.max(1, Math.round(ms)));
  }
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
