import { describe, expect, it } from '@jest/globals';
import { parseRetryAfter, retryDelay } from './retry-schedule.js';

describe('retry schedule', () => {
  const policy = { schedule: [5000, 60_000], jitter: 0.2, maxRetryAfterMs: 3_600_000 };

  it('spreads each delay by the jitter, within ±jitter of the scheduled delay', () => {
    expect(retryDelay(policy, 1, undefined, () => 0)).toBe(4000);
    expect(retryDelay(policy, 1, undefined, () => 1)).toBe(6000);
    expect(retryDelay(policy, 2, undefined, () => 0.5)).toBe(60_000);
  });

  it('waits at least what Retry-After asks, capped', () => {
    expect(retryDelay(policy, 1, 30_000, () => 0.5)).toBe(30_000);
    expect(retryDelay(policy, 1, 10 * 3_600_000, () => 0.5)).toBe(3_600_000);
    expect(retryDelay(policy, 2, 1000, () => 0.5)).toBe(60_000);
  });

  it('has no delay once the schedule is spent (the outcome is dead-lettered)', () => {
    expect(retryDelay(policy, 3)).toBeUndefined();
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    expect(parseRetryAfter('120')).toBe(120_000);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:01:00 GMT', now)).toBe(60_000);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(undefined)).toBeUndefined();
  });
});
