import { describe, expect, it } from '@jest/globals';
import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import { QUEUES, SUBJECTS } from '@trawl/contracts';
import { eventually } from '@trawl/testing';
import { FleetMonitor, type FleetState, type FleetWaitData } from './fleet.monitor.js';
import { FleetOutageError } from './task-error.mapper.js';

/** A worker that records pause/resume, a job that records its moves: the monitor's unit, without Redis. */
function fakes(now = Date.now()) {
  const calls: string[] = [];
  const worker = {
    pause: async (doNotWait?: boolean) => void calls.push(`pause(${String(doNotWait)})`),
    resume: async () => void calls.push('resume'),
  };
  const job = (data: FleetWaitData = {}, timestamp = now) => {
    const j = {
      data,
      timestamp,
      movedTo: undefined as number | undefined,
      updateData: async (d: FleetWaitData) => void (j.data = d),
      moveToDelayed: async (at: number) => void (j.movedTo = at),
    };
    return j;
  };
  return { calls, worker, job };
}

const outage = new FleetOutageError(
  'extractor-scrape is not deployed or not reachable (no responders on scrape.page.v1)',
);

describe('FleetMonitor: pause, do not drain', () => {
  it('puts a job that met an outage back without an attempt, pauses its queue, and resumes it when a probe finds a responder', async () => {
    let serving = false;
    const probed: string[] = [];
    const states: FleetState[] = [];
    const monitor = new FleetMonitor(
      async (subject) => {
        probed.push(subject);
        return serving;
      },
      { maxWaitMs: 60_000, probeIntervalMs: 20, onChange: (_q, s) => states.push(s) },
    );
    const { calls, worker, job } = fakes();
    let promoted = 0;
    monitor.attach(QUEUES.scrape, worker, async () => void (promoted += 1));
    const j = job();
    const before = Date.now();
    await expect(
      monitor.hold(QUEUES.scrape, j as unknown as Job<FleetWaitData>, 'token', outage),
    ).rejects.toBeInstanceOf(DelayedError);
    expect(calls).toEqual(['pause(true)']);
    expect(monitor.states()[QUEUES.scrape]).toBe('paused');
    // Back in a probe interval, not at the end of its wait.
    expect(j.movedTo).toBeGreaterThanOrEqual(before);
    expect(j.movedTo).toBeLessThan(before + 60_000);
    expect(j.data.fleetWaitSince).toBeGreaterThanOrEqual(before);
    await eventually(() => probed.length >= 2, 2000, 10);
    expect(calls).toEqual(['pause(true)']); // still paused while nothing answers
    serving = true;
    await eventually(() => monitor.states()[QUEUES.scrape] === 'serving', 2000, 10);
    await eventually(() => promoted === 1, 2000, 10);
    expect(calls).toEqual(['pause(true)', 'resume']);
    expect(probed.every((s) => s === SUBJECTS.scrapePage)).toBe(true);
    expect(states).toEqual(['paused', 'serving']);
    await monitor.close();
  });

  it('fails a job, once, with SERVICE_UNAVAILABLE when it has waited the maximum for its fleet', async () => {
    const monitor = new FleetMonitor(async () => false, { maxWaitMs: 1000, probeIntervalMs: 20 });
    const { worker, job } = fakes();
    monitor.attach(QUEUES.scrape, worker, async () => undefined);
    const j = job({ fleetWaitSince: Date.now() - 1500 });
    const err = await monitor
      .hold(QUEUES.scrape, j as unknown as Job<FleetWaitData>, 'token', outage)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnrecoverableError);
    expect((err as Error).message).toMatch(/^SERVICE_UNAVAILABLE: extractor-scrape is not deployed/);
    expect(j.movedTo).toBeUndefined();
    await monitor.close();
  });

  it('counts a job queued before the fleet went away from the moment it went away, and a later job from its own arrival', async () => {
    const monitor = new FleetMonitor(async () => false, { maxWaitMs: 10_000, probeIntervalMs: 5000 });
    const { worker, job } = fakes();
    monitor.attach(QUEUES.retail, worker, async () => undefined);
    const now = Date.now();
    const first = job({}, now - 60_000);
    await monitor.hold(QUEUES.retail, first as unknown as Job<FleetWaitData>, 't', outage).catch(() => undefined);
    expect(first.data.fleetWaitSince).toBeGreaterThanOrEqual(now);
    await new Promise((r) => setTimeout(r, 5));
    const later = job({}, Date.now());
    await monitor.hold(QUEUES.retail, later as unknown as Job<FleetWaitData>, 't', outage).catch(() => undefined);
    expect(later.data.fleetWaitSince).toBe(later.timestamp);
    await monitor.close();
  });

  it('takes jobs again once the fleet has been away longer than the maximum wait, and then holds a new job until its own wait ends', async () => {
    const monitor = new FleetMonitor(async () => false, { maxWaitMs: 100, probeIntervalMs: 20 });
    const { calls, worker, job } = fakes();
    monitor.attach(QUEUES.scrape, worker, async () => undefined);
    await monitor.hold(QUEUES.scrape, job() as unknown as Job<FleetWaitData>, 't', outage).catch(() => undefined);
    await eventually(() => monitor.states()[QUEUES.scrape] === 'expired', 2000, 10);
    expect(calls).toEqual(['pause(true)', 'resume']);
    const fresh = job({}, Date.now());
    await expect(
      monitor.hold(QUEUES.scrape, fresh as unknown as Job<FleetWaitData>, 't', outage),
    ).rejects.toBeInstanceOf(DelayedError);
    // Not spinning: it comes back when its own wait is over.
    expect(fresh.movedTo).toBe(fresh.timestamp + 100);
    await monitor.close();
  });
});
