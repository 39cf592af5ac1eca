/** A rate limit: at most `points` requests per `durationSec` seconds (fixed window, per key, across replicas). */
export interface RateLimit {
  points: number;
  durationSec: number;
}

/** The limits of one API key. */
export interface KeyLimits {
  rate: RateLimit;
  /** Most requests of this key in flight at once, across replicas. */
  concurrency: number;
  /** Most jobs of this key queued or running (task-service); absent: TASK_MAX_OUTSTANDING_PER_KEY. */
  outstanding?: number;
}

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600 };
const RATE_PATTERN = /^\s*(\d+)\s*\/\s*(\d*)\s*([smh])\s*$/;

/** Whether `value` is a rate in the form `<requests>/<n><s|m|h>`, e.g. `600/60s`, `100/1m`, `5000/h`. */
export function isRateLimitSpec(value: string): boolean {
  return tryParseRateLimit(value) !== null;
}

/** Parses `600/60s` (also `100/1m`, `5000/h`) into a RateLimit; throws naming the expected form. */
export function parseRateLimit(value: string): RateLimit {
  const rate = tryParseRateLimit(value);
  if (!rate) throw new Error(`rate must look like 600/60s (requests/window, window in s, m or h), got "${value}"`);
  return rate;
}

/** The canonical text of a rate limit, e.g. `600/60s`. */
export function formatRateLimit(rate: RateLimit): string {
  return `${rate.points}/${rate.durationSec}s`;
}

function tryParseRateLimit(value: string): RateLimit | null {
  const m = RATE_PATTERN.exec(value);
  if (!m) return null;
  const points = Number(m[1]);
  const durationSec = (m[2] === '' ? 1 : Number(m[2])) * UNIT_SECONDS[m[3]];
  if (!Number.isSafeInteger(points) || points < 1 || !Number.isSafeInteger(durationSec) || durationSec < 1) return null;
  return { points, durationSec };
}
