import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import {
  EXTRACT_SUBJECT_BY_TYPE,
  EXTRACT_TYPES,
  QUEUES,
  SUBJECTS,
  URL_QUEUE_BY_TYPE,
  type QueueName,
  type RpcSubject,
} from '@trawl/contracts';
import type { FleetOutageError } from './task-error.mapper.js';

/**
 * What serves each queue's jobs, probed while the fleet is away. `scrape`, `retail`, `mp-*` run URL tasks; `maps` and
 * `search` run the queries of a batch. The batch queue only gathers its children's results: no fleet.
 */
export const FLEET_SUBJECT_OF_QUEUE: Partial<Record<QueueName, RpcSubject>> = {
  [QUEUES.maps]: SUBJECTS.searchMaps,
  [QUEUES.search]: SUBJECTS.searchWeb,
  // A URL task's queue is served by the subject of its type (the contract's one map).
  ...Object.fromEntries(EXTRACT_TYPES.map((type) => [URL_QUEUE_BY_TYPE[type], EXTRACT_SUBJECT_BY_TYPE[type]])),
};

/**
 * A queue's fleet as this replica sees it: `serving` (jobs are taken), `paused` (no responder: this replica takes no
 * job of the queue and probes its subject), `expired` (paused longer than the maximum wait: jobs are taken again, only
 * so that those which waited too long fail; the others are put back until their own wait ends).
 */
export type FleetState = 'serving' | 'paused' | 'expired';

/** The part of a BullMQ worker the monitor drives. */
export interface PausableWorker {
  pause(doNotWaitActive?: boolean): Promise<void>;
  resume(): Promise<void> | void;
}

export interface FleetMonitorOptions {
  /** Longest a job waits for its fleet (`TASK_FLEET_MAX_WAIT_MS`); then it fails once with SERVICE_UNAVAILABLE. */
  maxWaitMs: number;
  /** Pause between two probes of an absent fleet (`TASK_FLEET_PROBE_INTERVAL_MS`). */
  probeIntervalMs: number;
  /** Observes each change of a queue's state (metrics, logs). */
  onChange?: (queue: QueueName, state: FleetState) => void;
  onError?: (message: string, error: unknown) => void;
}

/** What a job keeps of its wait for its fleet (in its data, so it survives a restart of task-service). */
export interface FleetWaitData {
  /** When this job began to wait for its fleet, ms since the epoch. */
  fleetWaitSince?: number;
}

interface Fleet {
  subject: RpcSubject;
  worker: PausableWorker;
  /** Promotes the queue's delayed jobs (those put back while the fleet was away) once it is back. */
  promote: () => Promise<void>;
  state: FleetState;
  absentSince?: number;
  probing?: Promise<void>;
}

/**
 * Pause, don't drain. When a job meets no responder for its extractor (or loses the NATS connection), it is put back
 * without using an attempt (`hold`), and the queue's worker in this replica stops taking jobs (`paused`) until a probe
 * of the subject finds a responder again, within a probe interval. A job waits for its fleet at most `maxWaitMs`,
 * counted from when it was both queued and without a fleet; then it fails, once, with SERVICE_UNAVAILABLE.
 */
export class FleetMonitor {
  private readonly fleets = new Map<QueueName, Fleet>();
  private closed = false;
  private readonly sleepers = new Set<() => void>();

  constructor(
    private readonly probe: (subject: RpcSubject) => Promise<boolean>,
    private readonly options: FleetMonitorOptions,
  ) {}

  /** Puts `queue`'s worker under the monitor (a queue with no fleet, the batch queue, is ignored). */
  attach(queue: QueueName, worker: PausableWorker, promote: () => Promise<void>): void {
    const subject = FLEET_SUBJECT_OF_QUEUE[queue];
    if (subject) this.fleets.set(queue, { subject, worker, promote, state: 'serving' });
  }

  /** Whether `queue`'s worker is paused now (its fleet is away). */
  isPaused(queue: QueueName): boolean {
    return this.fleets.get(queue)?.state === 'paused';
  }

  /** `queue`'s worker was rebuilt (TaskWorkers): the monitor drives the new one from now on. */
  replaceWorker(queue: QueueName, worker: PausableWorker): void {
    const fleet = this.fleets.get(queue);
    if (fleet) fleet.worker = worker;
  }

  /** Each monitored queue's state. */
  states(): Partial<Record<QueueName, FleetState>> {
    return Object.fromEntries([...this.fleets].map(([q, f]) => [q, f.state]));
  }

  /**
   * Puts back a job whose attempt met an outage, without using an attempt (it goes to `delayed`, the attempt is not
   * counted), and pauses its queue; or fails it, once, when it has waited `maxWaitMs`. Always throws: DelayedError
   * (BullMQ leaves the job where it was moved) or the final SERVICE_UNAVAILABLE.
   */
  async hold(
    queue: QueueName,
    job: Job<FleetWaitData>,
    token: string | undefined,
    outage: FleetOutageError,
  ): Promise<never> {
    const now = Date.now();
    const fleet = this.fleets.get(queue);
    const since = job.data.fleetWaitSince ?? Math.min(now, Math.max(job.timestamp, fleet?.absentSince ?? now));
    if (now - since >= this.options.maxWaitMs || !fleet || token === undefined) {
      const line = `SERVICE_UNAVAILABLE: ${outage.message}; waited ${now - since} ms for it (at most ${this.options.maxWaitMs} ms)`;
      const error = new UnrecoverableError(line);
      error.stack = line;
      throw error;
    }
    this.markAbsent(queue, fleet, now);
    if (job.data.fleetWaitSince === undefined) await job.updateData({ ...job.data, fleetWaitSince: since });
    // Paused, the job waits a probe interval in `delayed` and then in `wait` (nothing takes it): it runs soon after
    // the fleet is back. Expired, it is not taken again before its own wait ends (no spinning); a fleet that returns
    // promotes it.
    const deadline = since + this.options.maxWaitMs;
    const until = fleet.state === 'expired' ? deadline : Math.min(deadline, now + this.options.probeIntervalMs);
    await job.moveToDelayed(until, token);
    throw new DelayedError();
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const wake of this.sleepers) wake();
    await Promise.all([...this.fleets.values()].map((f) => f.probing));
  }

  private markAbsent(queue: QueueName, fleet: Fleet, now: number): void {
    if (fleet.state !== 'serving' || this.closed) return;
    fleet.absentSince = now;
    this.setState(queue, fleet, 'paused');
    // Not waiting for the active jobs: this is called from one of them.
    fleet.worker.pause(true).catch((e: unknown) => this.options.onError?.(`pausing ${queue}`, e));
    fleet.probing = this.probeUntilBack(queue, fleet).catch((e: unknown) =>
      this.options.onError?.(`probing the fleet of ${queue}`, e),
    );
  }

  private async probeUntilBack(queue: QueueName, fleet: Fleet): Promise<void> {
    while (!this.closed) {
      await this.sleep(this.options.probeIntervalMs);
      if (this.closed) return;
      if (await this.probe(fleet.subject).catch(() => false)) {
        fleet.absentSince = undefined;
        this.setState(queue, fleet, 'serving');
        await fleet.worker.resume();
        await fleet.promote();
        return;
      }
      if (fleet.state === 'paused' && Date.now() - (fleet.absentSince ?? Date.now()) >= this.options.maxWaitMs) {
        // Jobs that waited too long must fail: take them again; hold() puts the others back until their own end.
        this.setState(queue, fleet, 'expired');
        await fleet.worker.resume();
      }
    }
  }

  private setState(queue: QueueName, fleet: Fleet, state: FleetState): void {
    if (fleet.state === state) return;
    fleet.state = state;
    this.options.onChange?.(queue, state);
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.sleepers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.sleepers.add(wake);
    });
  }
}
