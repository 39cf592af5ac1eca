import { describe, expect, it } from '@jest/globals';
import type { BrowserPoolStats } from '@trawl/browser-pool';
import { poolReadiness } from './pool-readiness.policy.js';

const stats = (over: Partial<BrowserPoolStats>): BrowserPoolStats => ({
  browsers: 1,
  busyPages: 0,
  slots: 2,
  stuckPages: 0,
  cleanupsTimedOut: 0,
  idleContexts: 0,
  queueLength: 0,
  launched: 1,
  retired: 0,
  crashed: 0,
  tasksCompleted: 0,
  tasksFailed: 0,
  contextsReused: 0,
  tabsReset: 0,
  ...over,
});

describe('poolReadiness', () => {
  it('is ready with a browser up and a slot not stuck', () => {
    expect(poolReadiness(stats({ busyPages: 2, stuckPages: 1 })).ok).toBe(true);
  });

  it('is not ready when every page slot is stuck, and says so', () => {
    const r = poolReadiness(stats({ busyPages: 2, stuckPages: 2 }));
    expect(r.ok).toBe(false);
    expect(r.details.reason).toBe('all 2 page slots are stuck');
  });

  it('is not ready without a browser, or before the pool started', () => {
    expect(poolReadiness(stats({ browsers: 0 })).ok).toBe(false);
    expect(poolReadiness(undefined).ok).toBe(false);
  });
});
