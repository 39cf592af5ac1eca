import type { Session, Slot } from './browser-pool-state.types.js';

/**
 * The idle tab of `session` that serves a task of `tenant` at the least cost (-1: none): one that still shows this
 * tenant's last page (no reset), else an empty one, else another tenant's (reset first). Most recent first.
 */
export function idleSlotFor(idle: readonly Slot[], session: Session, tenant: string | undefined): number {
  const mine = (s: Slot) => s.session === session;
  const kept = tenant === undefined ? -1 : idle.findLastIndex((s) => mine(s) && s.shownFor === tenant);
  if (kept >= 0) return kept;
  const empty = idle.findLastIndex((s) => mine(s) && s.shownFor === undefined);
  return empty >= 0 ? empty : idle.findLastIndex(mine);
}
