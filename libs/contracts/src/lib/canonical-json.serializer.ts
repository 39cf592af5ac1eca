/**
 * JSON with object keys sorted at every level and `undefined` members left out: equal values give equal text whatever
 * the order of their fields. The one rule behind every fingerprint of a request (the gateway's `maxAge` cache key,
 * task-service's Idempotency-Key fingerprint).
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}
