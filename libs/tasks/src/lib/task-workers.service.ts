import { createRedisBackend, DelayedError, Job, UnrecoverableError, Worker, type Processor } from 'bullmq';
import { QUEUES, type QueueName, type TraceCarrier } from '@trawl/contracts';
import type { RedisClient } from '@trawl/redis';
import { SpanKind, traced, tracingActive, withExtractedContext } from '@trawl/telemetry';
import { OUTCOME_QUEUES, type OutcomePublisher } from './outcome.publisher.js';
import { releaseOutstanding } from './task-admission.service.js';
import type { FleetMonitor } from './fleet.monitor.js';
import { FleetOutageError } from './task-error.mapper.js';
import type { QueryJobData, TaskJobData } from './task-job-data.types.js';
import type { TaskProcessors } from './task-processors.service.js';
import type { TaskQueues } from './task-queues.service.js';
import { resultKeepingBackend } from './task-results.store.js';
import {
  FORGIVE_STALL_SCRIPT,
  isRedisOutageError,
  workerLinkProblem,
  type WorkerHealth,
} from './worker-watch.monitor.js';

/** BullMQ's own stall limit, out of the way: TaskWorkers applies `maxStalledCount`, forgiving stalls of an outage. */
const BULLMQ_MAX_STALLED = 1_000_000;

export interface TaskWorkersOptions {
  /** This replica's name, stored on each job it runs (BullMQ `processedBy`). */
  name?: string;
  /** Jobs run at once per queue, in this process. */
  concurrency: Record<QueueName, number>;
  /** A job's lock; renewed while it runs. A job whose lock lapses (its worker died) is stalled and taken back. */
  lockDurationMs: number;
  stalledIntervalMs: number;
  /** Stalls allowed before the job fails. */
  maxStalledCount: number;
  onError?: (message: string, error: unknown) => void;
  /**
   * Observes each attempt's end (metrics): completed, failed for good, retried, stalled (its worker died), or held
   * (it met an outage: put back without using an attempt).
   */
  onAttempt?: (queue: QueueName, outcome: 'completed' | 'failed' | 'retried' | 'stalled' | 'held') => void;
  /** Pauses a queue whose fleet is away and holds its jobs meanwhile; without it an outage fails the attempt. */
  fleets?: FleetMonitor;
  /**
   * How often each worker is checked for taking jobs (its loop running, its connections up and on the master);
   * default 2 s. A problem seen on two checks in a row gets the worker rebuilt. 0 turns the watch off.
   */
  watchIntervalMs?: number;
  /** A worker was found not taking jobs (rebuilding) or its replacement is ready (taking-jobs). */
  onWorkerChange?: (queue: QueueName, health: WorkerHealth) => void;
}

interface Slot {
  worker: Worker;
  health: WorkerHealth;
  /** The problem seen on the last check, if any (acted on when seen twice in a row). */
  suspect?: string;
}

/**
 * One BullMQ worker per queue. URL queues and the batch queue publish each job's outcome when it reaches its final
 * state; the maps and search queues (batch queries) move their parent's progress as they finish.
 */
export class TaskWorkers {
  private readonly slots = new Map<QueueName, Slot>();
  /** Replaced workers still finishing their active jobs. */
  private readonly retiring = new Set<Promise<void>>();
  private watchTimer: NodeJS.Timeout | undefined;
  private watching: Promise<void> | undefined;
  /** When this replica last saw Redis go away or change master (ms since the epoch; 0: never). */
  private lastOutageAt = 0;
  /** Each worker's own connection (BullMQ copies it), disconnected when the worker is dropped or at close(). */
  private readonly connectionOf = new Map<Worker, RedisClient>();
  /** What runs after a job settles (outcome publishing, parent progress); awaited by close(). */
  private readonly afterWork = new Set<Promise<void>>();
  private closing: Promise<void> | undefined;

  constructor(
    private readonly queues: TaskQueues,
    private readonly processors: TaskProcessors,
    private readonly outcomes: OutcomePublisher,
    private readonly options: TaskWorkersOptions,
  ) {}

  start(): void {
    for (const name of Object.values(QUEUES)) {
      const worker = this.createWorker(name);
      this.slots.set(name, { worker, health: { state: 'taking-jobs' } });
      this.options.fleets?.attach(name, worker, () => this.queues.queue(name).promoteJobs());
      void worker.run().catch((e: unknown) => this.options.onError?.(`worker of ${name}`, e));
    }
    const connection = this.queues.connection;
    const outage = () => (this.lastOutageAt = Date.now());
    connection.on('error', outage);
    connection.on('reconnecting', outage);
    const interval = this.options.watchIntervalMs ?? 2000;
    if (interval > 0) this.scheduleWatch(interval);
  }

  /** Each queue's worker in this replica (readiness): taking jobs, or being rebuilt and why. */
  states(): Partial<Record<QueueName, WorkerHealth>> {
    return Object.fromEntries([...this.slots].map(([name, slot]) => [name, slot.health]));
  }

  /** A new worker of queue `name` with its listeners (not yet running). */
  private createWorker(name: QueueName): Worker {
    const connection = this.connectionFor(name);
    const outcomeQueue = OUTCOME_QUEUES.includes(name);
    const worker = new Worker(
      name,
      consumerSpan(name, this.withStalls(name, this.withOutages(name, this.processorOf(name)))),
      {
        ...(this.options.name ? { name: this.options.name } : {}),
        connection,
        prefix: this.queues.prefixOf(name),
        concurrency: this.options.concurrency[name],
        lockDuration: this.options.lockDurationMs,
        stalledInterval: this.options.stalledIntervalMs,
        maxStalledCount: BULLMQ_MAX_STALLED,
        autorun: false,
      },
      // The outcome queues' large results are written once, into the job's hash (task-results.store).
      outcomeQueue ? resultKeepingBackend : createRedisBackend,
    );
    this.connectionOf.set(worker, connection);
    const after = (job: Job | undefined, work: (job: Job) => Promise<void>) => {
      if (!job) return;
      const done = work(job)
        .catch((e: unknown) => this.options.onError?.(`after job ${job.id} of ${name}`, e))
        .finally(() => this.afterWork.delete(done));
      this.afterWork.add(done);
    };
    // A completed job object is the finished job (result, finishedOn, attempts): published as it is. After a failed
    // attempt the job may be retried, so its state is read back first.
    worker.on('completed', (job: Job<TaskJobData>) =>
      after(job, outcomeQueue ? () => this.outcomes.publish(job, 'completed') : (j) => this.querySettled(j, true)),
    );
    worker.on('completed', () => this.options.onAttempt?.(name, 'completed'));
    worker.on('failed', (job: Job | undefined) => {
      if (!job) return;
      const final = job.finishedOn !== undefined || job.attemptsMade >= (job.opts.attempts ?? 1);
      this.options.onAttempt?.(name, final ? 'failed' : 'retried');
    });
    worker.on('failed', (job: Job | undefined) =>
      after(
        job,
        outcomeQueue
          ? (j) => this.outcomes.jobSettled(name, String(j.id))
          : (j) => this.querySettled(j, j.finishedOn !== undefined || j.attemptsMade >= (j.opts.attempts ?? 1)),
      ),
    );
    // A job whose worker died (its lock lapsed), moved back to wait by this worker's stalled check. Shortly after an
    // outage, the stall is the outage's: not counted against the job (forgiveStall).
    worker.on('stalled', (jobId: string) => {
      this.options.onAttempt?.(name, 'stalled');
      if (this.outageRecent()) void this.forgiveStall(name, jobId);
    });
    // A job whose lock could not be renewed (it lapsed while Redis was away) is no longer this worker's: the stalled
    // check hands it to a worker again. Its attempt here is dropped at once rather than left running beside the new one.
    worker.on('lockRenewalFailed', (jobIds: string[]) => {
      for (const id of jobIds) worker.cancelJob(id, 'its lock was lost');
    });
    worker.on('error', (e) => {
      // An outage is logged once per connection by @trawl/redis; here it only marks the time.
      if (isRedisOutageError(e)) this.lastOutageAt = Date.now();
      else this.options.onError?.(`worker of ${name}`, e);
    });
    return worker;
  }

  /**
   * Stops taking jobs, waits for the active ones and for what follows them (their outcomes published), then
   * disconnects. Idempotent: every caller waits for the same close.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      clearTimeout(this.watchTimer);
      await this.watching;
      await this.options.fleets?.close();
      const workers = [...this.slots.values()].map((s) => s.worker);
      await Promise.all(workers.map((w) => w.close()));
      await Promise.all([...this.retiring]);
      while (this.afterWork.size > 0) await Promise.all([...this.afterWork]);
      // The connections are ours: disconnected directly (BullMQ's Worker.disconnect() waits for an `end` event that a
      // Cluster client already closed by Worker.close() never emits).
      for (const w of workers) this.connectionOf.get(w)?.disconnect();
      this.connectionOf.clear();
    })();
    return this.closing;
  }

  private scheduleWatch(intervalMs: number): void {
    this.watchTimer = setTimeout(() => {
      this.watching = this.watch()
        .catch((e: unknown) => this.options.onError?.('watching the workers', e))
        .finally(() => {
          if (!this.closing) this.scheduleWatch(intervalMs);
        });
    }, intervalMs);
    this.watchTimer.unref();
  }

  /**
   * Looks at every worker (workerLinkProblem); one found not taking jobs on two looks in a row is rebuilt: a new
   * worker, on new connections from the factory (so on the master the topology names now), takes its place at once,
   * and the old one finishes its active jobs (bounded by the lock duration) before it is dropped.
   */
  private async watch(): Promise<void> {
    for (const [name, slot] of this.slots) {
      if (this.closing) return;
      const problem = await workerLinkProblem(slot.worker, this.queues.connection);
      if (!problem) {
        slot.suspect = undefined;
        continue;
      }
      if (!slot.suspect) {
        slot.suspect = problem;
        continue;
      }
      slot.suspect = undefined;
      this.lastOutageAt = Date.now();
      await this.rebuild(name, slot, problem);
    }
  }

  private async rebuild(name: QueueName, slot: Slot, reason: string): Promise<void> {
    this.setHealth(name, slot, { state: 'rebuilding', reason, since: Date.now() });
    const old = slot.worker;
    const fresh = this.createWorker(name);
    slot.worker = fresh;
    const fleets = this.options.fleets;
    if (fleets?.isPaused(name)) await fresh.pause(true);
    fleets?.replaceWorker(name, fresh);
    if (!fresh.isPaused()) void fresh.run().catch((e: unknown) => this.options.onError?.(`worker of ${name}`, e));
    const retired = this.retire(old);
    this.retiring.add(retired);
    void retired.finally(() => this.retiring.delete(retired));
    await fresh.waitUntilReady().catch(() => undefined);
    if (slot.worker === fresh) this.setHealth(name, slot, { state: 'taking-jobs' });
  }

  /** Stops a replaced worker: its active jobs get up to a lock duration to finish, then it is dropped. */
  private async retire(worker: Worker): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.options.lockDurationMs)));
    await Promise.race([worker.close().catch(() => undefined), late]);
    clearTimeout(timer);
    this.connectionOf.get(worker)?.disconnect();
    this.connectionOf.delete(worker);
    // Not awaited: a worker stuck on a lost node may never see its connections end.
    void worker.disconnect().catch(() => undefined);
  }

  private setHealth(name: QueueName, slot: Slot, health: WorkerHealth): void {
    slot.health = health;
    this.options.onWorkerChange?.(name, health);
  }

  /** Whether a stall now may be an outage's: a lock lapses at most a lock duration after Redis went away, and is
   * noticed within two stalled checks. */
  private outageRecent(): boolean {
    const window = this.options.lockDurationMs + 2 * this.options.stalledIntervalMs + 1000;
    return this.lastOutageAt > 0 && Date.now() - this.lastOutageAt <= window;
  }

  /** Takes back one stall of a job (its `stc`): the outage stalled it, not the job. */
  private async forgiveStall(name: QueueName, jobId: string): Promise<void> {
    await this.queues.connection
      .eval(FORGIVE_STALL_SCRIPT, 1, this.queues.queue(name).toKey(jobId))
      .catch((e: unknown) => this.options.onError?.(`forgiving a stall of ${jobId}`, e));
  }

  /**
   * The stall limit (`maxStalledCount`), applied when a job starts rather than by BullMQ, so that stalls an outage
   * caused do not count: a job past the limit shortly after an outage is forgiven one stall and runs; otherwise (its
   * count read again, a stall handler may have forgiven it meanwhile) it fails for good. An attempt whose lock was
   * lost (its signal aborted, see `lockRenewalFailed`) ends at once with DelayedError: BullMQ leaves the job alone,
   * as another worker has it or will.
   */
  private withStalls(name: QueueName, run: Processor): Processor {
    return async (job: Job, token?: string, signal?: AbortSignal) => {
      if (job.stalledCounter > this.options.maxStalledCount) await this.checkStalls(name, job);
      const attempt = run(job, token, signal);
      if (!signal) return attempt;
      let onAbort: (() => void) | undefined;
      const lost = new Promise<never>((_, reject) => {
        onAbort = () => reject(new DelayedError(`job ${job.id}: its lock was lost`));
        if (signal.aborted) onAbort();
        else signal.addEventListener('abort', onAbort, { once: true });
      });
      try {
        return await Promise.race([attempt, lost]);
      } finally {
        if (onAbort) signal.removeEventListener('abort', onAbort);
        attempt.catch(() => undefined);
      }
    };
  }

  private async checkStalls(name: QueueName, job: Job): Promise<void> {
    if (this.outageRecent()) {
      await this.forgiveStall(name, String(job.id));
      return;
    }
    const stalls = Number(await this.queues.connection.hget(this.queues.queue(name).toKey(String(job.id)), 'stc'));
    if (stalls > this.options.maxStalledCount) {
      const line = `INTERNAL: the job stalled ${stalls} times (its worker died or hung while running it; at most ${this.options.maxStalledCount})`;
      const error = new UnrecoverableError(line);
      error.stack = line;
      throw error;
    }
  }

  private connectionFor(name: QueueName): RedisClient {
    return this.queues.workerConnection(`trawl-worker-${name}`);
  }

  /**
   * An attempt that met an outage is no attempt: the fleet monitor puts the job back (or fails it once its wait is
   * over). Without a monitor, the outage fails the attempt as SERVICE_UNAVAILABLE (retryable).
   */
  private withOutages(name: QueueName, run: Processor): Processor {
    return async (job: Job, token?: string, signal?: AbortSignal) => {
      try {
        return await run(job, token, signal);
      } catch (e) {
        if (!(e instanceof FleetOutageError)) throw e;
        const fleets = this.options.fleets;
        if (!fleets) throw Object.assign(new Error(e.stack), { stack: e.stack });
        this.options.onAttempt?.(name, 'held');
        return fleets.hold(name, job, token, e);
      }
    };
  }

  private processorOf(name: QueueName): Processor {
    switch (name) {
      case QUEUES.batch:
        return (job: Job<TaskJobData>) => this.processors.runBatch(job);
      // BullMQ's signal aborts when the job's lock was lost (`lockRenewalFailed`): the attempt's extractor is told to stop.
      case QUEUES.maps:
      case QUEUES.search:
        return (job: Job<QueryJobData>, _token?: string, signal?: AbortSignal) => this.processors.runQuery(job, signal);
      default:
        return (job: Job<TaskJobData>, _token?: string, signal?: AbortSignal) => this.processors.runUrl(job, signal);
    }
  }

  /**
   * A batch's query ended an attempt. In its final state it no longer counts against its key's cap (idempotent; its
   * parent's outcome releases it again); either way its batch's progress moves.
   */
  private async querySettled(child: Job<QueryJobData>, final: boolean): Promise<void> {
    if (final) {
      await releaseOutstanding(this.queues.connection, child.data.quotaKeyId, String(child.id)).catch((e: unknown) =>
        this.options.onError?.(`query ${child.id} not released from its key's outstanding jobs`, e),
      );
    }
    await this.moveParentProgress(child);
  }

  /** A batch's progress: the share of its queries that settled, in percent. */
  private async moveParentProgress(child: Job): Promise<void> {
    const parentId = child.parent?.id;
    if (!parentId) return;
    const parent = await Job.fromId(this.queues.queue(QUEUES.batch), parentId);
    if (!parent) return;
    const counts = await parent.getDependenciesCount();
    const settled = (counts.processed ?? 0) + (counts.ignored ?? 0) + (counts.failed ?? 0);
    const total = settled + (counts.unprocessed ?? 0);
    if (total === 0 || (await parent.getState()) !== 'waiting-children') return;
    await parent.updateProgress(Math.floor((100 * settled) / total));
  }
}

/**
 * Runs each job inside the trace stored in its data when it was created: a CONSUMER span named after the queue, so
 * the extractor request the job makes belongs to the caller's trace. With tracing off the processor runs as it is.
 */
function consumerSpan(queue: QueueName, run: Processor): Processor {
  return (job: Job<{ trace?: TraceCarrier }>, token?: string, signal?: AbortSignal) => {
    if (!tracingActive()) return run(job, token, signal);
    return withExtractedContext(job.data.trace, () =>
      traced(`process ${queue}`, () => run(job, token, signal), {
        kind: SpanKind.CONSUMER,
        attributes: {
          'messaging.system': 'bullmq',
          'messaging.destination.name': queue,
          'messaging.message.id': String(job.id),
          'messaging.operation.type': 'process',
        },
      }),
    );
  };
}
