import { describe, expect, it } from '@jest/globals';
import type { Session, Slot } from './browser-pool-state.types.js';
import { idleSlotFor } from './idle-slot.policy.js';

// Which idle tab a task takes (ADR 0017): its own tenant's kept page first, then an empty tab, then another tenant's
// (emptied before use); only tabs of the task's session; the most recent of each kind.

const session = (key: string) => ({ key }) as Session;
const tab = (of: Session, shownFor?: string) => ({ session: of, shownFor }) as Slot;

describe('idleSlotFor', () => {
  const mine = session('pool:|');
  const other = session('named');

  it('takes the tab that still shows the tenant’s own page, the most recent one', () => {
    const idle = [tab(mine, 'a'), tab(mine), tab(mine, 'b'), tab(mine, 'a'), tab(other, 'a')];
    expect(idleSlotFor(idle, mine, 'a')).toBe(3);
  });

  it('else an empty tab, else another tenant’s', () => {
    expect(idleSlotFor([tab(mine, 'b'), tab(mine), tab(mine, 'c')], mine, 'a')).toBe(1);
    expect(idleSlotFor([tab(mine, 'b'), tab(mine, 'c')], mine, 'a')).toBe(1);
  });

  it('gives a task without a tenant an empty tab first, never taking a kept page for a tenant match', () => {
    expect(idleSlotFor([tab(mine), tab(mine, 'a')], mine, undefined)).toBe(0);
    expect(idleSlotFor([tab(mine, 'a'), tab(mine, 'b')], mine, undefined)).toBe(1);
  });

  it('never takes another session’s tab', () => {
    expect(idleSlotFor([tab(other, 'a'), tab(other)], mine, 'a')).toBe(-1);
    expect(idleSlotFor([], mine, 'a')).toBe(-1);
  });
});
