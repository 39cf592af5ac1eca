import { Job, Worker, type Processor } from 'bullmq';
import { QUEUES, type QueueName, type TraceCarrier } from '@trawl/contracts';
import type { RedisClient } from '@trawl/redis';
import { SpanKind, traced, tracingActive, withExtractedContext } from '@trawl/telemetry';
import { OUTCOME_QUEUES, type OutcomePublisher } from './outcome-publisher.js';
import type { FleetMonitor } from './fleet-monitor.js';
import { FleetOutageError } from './task-error.js';
import type { QueryJobData, TaskJobData } from './task-job-data.js';
import type { TaskProcessors } from './task-processors.js';
import type { TaskQueues } from './task-queues.js';

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
}

/**
 * One BullMQ worker per queue. URL queues and the batch queue publish each job's outcome when it reaches its final
 * state; the maps and search queues (batch queries) move their parent's progress as they finish.
 */
export class TaskWorkers {
  private readonly workers: Worker[] = [];
  /** The workers' own connections, disconnected by close(). */
  private readonly connections: RedisClient[] = [];
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
      const worker = new Worker(name, consumerSpan(name, this.withOutages(name, this.processorOf(name))), {
        ...(this.options.name ? { name: this.options.name } : {}),
        connection: this.connectionFor(name),
        prefix: this.queues.prefixOf(name),
        concurrency: this.options.concurrency[name],
        lockDuration: this.options.lockDurationMs,
        stalledInterval: this.options.stalledIntervalMs,
        maxStalledCount: this.options.maxStalledCount,
      });
      const outcomeQueue = OUTCOME_QUEUES.includes(name);
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
        after(job, outcomeQueue ? () => this.outcomes.publish(job, 'completed') : (j) => this.moveParentProgress(j)),
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
          outcomeQueue ? (j) => this.outcomes.jobSettled(name, String(j.id)) : (j) => this.moveParentProgress(j),
        ),
      );
      // A job whose worker died (its lock lapsed), moved back to wait by this worker's stalled check.
      worker.on('stalled', () => this.options.onAttempt?.(name, 'stalled'));
      worker.on('error', (e) => this.options.onError?.(`worker of ${name}`, e));
      this.options.fleets?.attach(name, worker, () => this.queues.queue(name).promoteJobs());
      this.workers.push(worker);
    }
  }

  /**
   * Stops taking jobs, waits for the active ones and for what follows them (their outcomes published), then
   * disconnects. Idempotent: every caller waits for the same close.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.options.fleets?.close();
      await Promise.all(this.workers.map((w) => w.close()));
      while (this.afterWork.size > 0) await Promise.all([...this.afterWork]);
      // The connections are ours: disconnected directly (BullMQ's Worker.disconnect() waits for an `end` event that a
      // Cluster client already closed by Worker.close() never emits).
      for (const connection of this.connections) connection.disconnect();
    })();
    return this.closing;
  }

  private connectionFor(name: QueueName): RedisClient {
    const connection = this.queues.workerConnection(`trawl-worker-${name}`);
    this.connections.push(connection);
    return connection;
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
      case QUEUES.maps:
      case QUEUES.search:
        return (job: Job<QueryJobData>) => this.processors.runQuery(job);
      default:
        return (job: Job<TaskJobData>) => this.processors.runUrl(job);
    }
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
