/** Reads `Retry-After` (seconds or an HTTP date) as milliseconds from now. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (!v) return undefined;
  if (/^\d+$/.test(v.trim())) return Number(v.trim()) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export interface RetryPolicy {
  /** Delay before retry n (index n-1); its length is the number of retries. */
  schedule: number[];
  /** Random spread, as a fraction of the delay. */
  jitter: number;
  /** Cap on a receiver's Retry-After. */
  maxRetryAfterMs: number;
}

/**
 * Delay before the retry that follows failed attempt `attempt` (1-based), or undefined when the schedule is spent:
 * the schedule's entry spread by jitter, and never less than the receiver's Retry-After (capped).
 */
export function retryDelay(
  policy: RetryPolicy,
  attempt: number,
  retryAfterMs?: number,
  random: () => number = Math.random,
): number | undefined {
  const base = policy.schedule[attempt - 1];
  if (base === undefined) return undefined;
  const spread = base * policy.jitter * (2 * random() - 1);
  const delay = Math.max(0, Math.round(base + spread));
  return retryAfterMs === undefined ? delay : Math.max(delay, Math.min(retryAfterMs, policy.maxRetryAfterMs));
}
