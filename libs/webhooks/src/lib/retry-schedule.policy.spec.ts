import { describe, expect, it } from '@jest/globals';
import { parseRetryAfter, parseRetrySchedule, retryDelay } from './retry-schedule.policy.js';

describe('retry schedule', () => {
  const policy = { schedule: [5000, 60_000], jitter: 0.2, maxRetryAfterMs: 3_600_000 };

  it('parses durations with units into milliseconds', () => {
    expect(parseRetrySchedule('500ms,5s,2m,1h')).toEqual([500, 5000, 120_000, 3_600_000]);
    expect(() => parseRetrySchedule('5 minutes')).toThrow();
  });

  it('the default schedule of the dispatcher reaches about a day', () => {
    const total = parseRetrySchedule('5s,30s,2m,10m,30m,1h,3h,6h,12h').reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThan(20 * 3_600_000);
    expect(total).toBeLessThan(26 * 3_600_000);
  });

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
