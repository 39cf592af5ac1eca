import { describe, expect, it } from '@jest/globals';
import { HostLanes, type HostLanesOptions } from './host-lanes.queue.js';

const OPTIONS: HostLanesOptions = {
  concurrency: 4,
  perHost: 2,
  perHostQueued: 2,
  retrySlots: 2,
  circuitFailures: 3,
  circuitOpenMs: 1000,
  slowAfterMs: 500,
  slowDeferMs: 3000,
};

describe('HostLanes: delivery slots shared fairly between webhook hosts', () => {
  it('caps a host at perHost in flight and gives the other slots to other hosts, round-robin', () => {
    const lanes = new HostLanes<string>(OPTIONS);
    for (const i of [1, 2, 3, 4]) lanes.add('a:1', `a${i}`, false);
    for (const i of [1, 2]) lanes.add('b:1', `b${i}`, false);
    expect(lanes.take().map((s) => s.item)).toEqual(['a1', 'b1', 'a2', 'b2']);
  });

  it('holds the reader on a full lane while the host keeps up, and defers the overflow once the host is slow', () => {
    const lanes = new HostLanes<string>(OPTIONS);
    const t0 = 1_000_000;
    for (const i of [1, 2]) expect(lanes.add('a:1', `a${i}`, false, t0)).toEqual({ queued: true });
    expect(lanes.take(t0).map((s) => s.item)).toEqual(['a1', 'a2']);
    for (const i of [3, 4]) expect(lanes.add('a:1', `a${i}`, false, t0)).toEqual({ queued: true });
    expect(lanes.add('a:1', 'a5', false, t0 + 100)).toEqual({ queued: false, wait: true });
    // Both slots held for slowAfterMs: a slow host.
    expect(lanes.add('a:1', 'a5', false, t0 + 500)).toEqual({ queued: false, deferMs: 3000 });
    expect(lanes.add('b:1', 'b1', false, t0 + 500)).toEqual({ queued: true });
    // A slot frees: no longer slow.
    lanes.done('a:1', false, 'ok', t0 + 600);
    expect(lanes.add('a:1', 'a5', false, t0 + 600)).toEqual({ queued: false, wait: true });
  });

  it('lets retries hold at most retrySlots, so first attempts of other hosts still start', () => {
    const lanes = new HostLanes<string>({ ...OPTIONS, perHost: 4, perHostQueued: 4, retrySlots: 1 });
    for (const i of [1, 2, 3]) lanes.add('a:1', `retry${i}`, true);
    lanes.add('b:1', 'first', false);
    expect(lanes.take().map((s) => s.item)).toEqual(['retry1', 'first']);
  });

  it('backs a host off as a whole after failures in a row, then lets one delivery try it', () => {
    const lanes = new HostLanes<string>({ ...OPTIONS, perHost: 4, perHostQueued: 8 });
    const t0 = 1_000_000;
    for (const i of [1, 2, 3, 4, 5]) lanes.add('a:1', `a${i}`, false, t0);
    expect(lanes.take(t0)).toHaveLength(4);
    lanes.done('a:1', false, 'failed', t0);
    lanes.done('a:1', false, 'failed', t0);
    const opened = lanes.done('a:1', false, 'failed', t0);
    expect(opened).toEqual({ deferred: ['a5'], deferMs: 1000 });
    expect(lanes.isOpen('a:1', t0 + 999)).toBe(true);
    expect(lanes.add('a:1', 'a6', false, t0 + 10)).toEqual({ queued: false, deferMs: 990 });
    lanes.done('a:1', false, 'neutral', t0);
    // Half-open: one at a time.
    for (const i of [7, 8]) lanes.add('a:1', `a${i}`, false, t0 + 1000);
    expect(lanes.take(t0 + 1000).map((s) => s.item)).toEqual(['a7']);
    // It fails again: backed off twice as long.
    expect(lanes.done('a:1', false, 'failed', t0 + 1000)).toEqual({ deferred: ['a8'], deferMs: 2000 });
    // Then it answers: closed again.
    lanes.add('a:1', 'a9', false, t0 + 3000);
    expect(lanes.take(t0 + 3000)).toHaveLength(1);
    lanes.done('a:1', false, 'ok', t0 + 3000);
    for (const i of [10, 11]) lanes.add('a:1', `a${i}`, false, t0 + 3000);
    expect(lanes.take(t0 + 3000)).toHaveLength(2);
  });
});
