import type { BrowserPoolStats } from '@trawl/browser-pool';

/**
 * Readiness of the browser fleet from its pool's numbers: ready when a browser is up and at least one page slot is
 * not stuck (held past its task's deadline and the cleanup's bound). A pool whose every slot is stuck could take no
 * scrape or render: it reports not ready, with why, so the replica is taken out of rotation.
 */
export function poolReadiness(stats: BrowserPoolStats | undefined): {
  ok: boolean;
  details: Record<string, unknown>;
} {
  if (!stats) return { ok: false, details: { reason: 'the browser pool is not started' } };
  if (stats.browsers === 0) return { ok: false, details: { ...stats, reason: 'no browser is up' } };
  if (stats.slots > 0 && stats.stuckPages >= stats.slots)
    return { ok: false, details: { ...stats, reason: `all ${stats.slots} page slots are stuck` } };
  return { ok: true, details: { ...stats } };
}
