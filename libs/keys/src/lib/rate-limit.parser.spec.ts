import { describe, expect, it } from '@jest/globals';
import { formatRateLimit, isRateLimitSpec, parseRateLimit } from './rate-limit.parser.js';

describe('parseRateLimit', () => {
  it('reads requests per window in seconds, minutes or hours', () => {
    expect(parseRateLimit('600/60s')).toEqual({ points: 600, durationSec: 60 });
    expect(parseRateLimit('100/1m')).toEqual({ points: 100, durationSec: 60 });
    expect(parseRateLimit('5000/h')).toEqual({ points: 5000, durationSec: 3600 });
  });

  it('refuses malformed or zero rates, naming the expected form', () => {
    for (const bad of ['600', '600/60', '0/60s', '10/0s', 'x/1s', '-1/1s']) {
      expect(isRateLimitSpec(bad)).toBe(false);
      expect(() => parseRateLimit(bad)).toThrow(/600\/60s/);
    }
  });

  it('formats back to the canonical form', () => {
    expect(formatRateLimit(parseRateLimit('100/1m'))).toBe('100/60s');
  });
});
