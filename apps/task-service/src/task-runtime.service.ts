import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import type { TaskServiceEnv } from '@trawl/config';
import { QUEUES, type QueueName } from '@trawl/contracts';
import { NATS_CONNECTION, MessagingClient, ensureOutcomeStream, streamReplicas } from '@trawl/messaging';
import {
  DEFAULT_OUTCOME_PUBLISHER_OPTIONS,
  FleetMonitor,
  type FleetState,
  BatchEventsPublisher,
  OutcomePublisher,
  ReplicaAcks,
  TaskCanceller,
  TaskProcessors,
  TaskQueues,
  TaskWorkers,
  type WorkerHealth,
} from '@trawl/tasks';
import type { TrawlMetrics } from '@trawl/telemetry';
import { TASK_METRICS, TASK_SERVICE_ENV } from './task-service.tokens.js';

/**
 * Starts what runs beside the NATS handlers: the outcome stream, the queue workers and the outcome sweep; stops them
 * (workers first, finishing their jobs) before the NATS connection drains.
 */
@Injectable()
export class TaskRuntimeService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('TaskRuntime');
  private workers: TaskWorkers | undefined;
  private outcomes: OutcomePublisher | undefined;
  private fleets: FleetMonitor | undefined;

  constructor(
    @Inject(TASK_SERVICE_ENV) private readonly env: TaskServiceEnv,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    private readonly messaging: MessagingClient,
    private readonly queues: TaskQueues,
    private readonly acks: ReplicaAcks,
    private readonly canceller: TaskCanceller,
    private readonly batchEvents: BatchEventsPublisher,
    @Inject(TASK_METRICS) private readonly metrics: TrawlMetrics | null,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const env = this.env;
    const replicas = streamReplicas(this.nc, env.NATS_STREAM_REPLICAS, env.NATS_URL);
    const stream = await ensureOutcomeStream(await jetstreamManager(this.nc), {
      duplicateWindowMs: env.TASK_OUTCOME_DUPLICATE_WINDOW_MS,
      maxAgeMs: env.TASK_OUTCOME_MAX_AGE_MS,
      replicas,
    });
    if (stream.action === 'replicas') this.logger.log(`outcome stream: replicas ${stream.from} -> ${stream.to}`);
    const onError = (message: string, e: unknown) =>
      this.logger.error(`${message}: ${e instanceof Error ? e.message : String(e)}`);
    this.outcomes = new OutcomePublisher(
      jetstream(this.nc),
      this.queues,
      () => this.nc.info?.max_payload ?? 1024 * 1024,
      {
        ...DEFAULT_OUTCOME_PUBLISHER_OPTIONS,
        sweepWindowMs: env.TASK_OUTCOME_DUPLICATE_WINDOW_MS,
        sweepGraceMs: Math.min(DEFAULT_OUTCOME_PUBLISHER_OPTIONS.sweepGraceMs, env.TASK_OUTCOME_SWEEP_INTERVAL_MS),
        sweepIntervalMs: env.TASK_OUTCOME_SWEEP_INTERVAL_MS,
        onError,
        batchEvents: this.batchEvents,
        acks: this.acks,
      },
    );
    this.metrics?.queue.addDepthReader(async () => {
      const counts: Record<string, Record<string, number>> = {};
      for (const name of Object.values(QUEUES)) counts[name] = await this.queues.queue(name).getJobCounts();
      return counts;
    });
    if (!env.TASK_WORKERS_ENABLED) return;
    const processors = new TaskProcessors(this.messaging, {
      scrapeFormats: env.TASK_SCRAPE_FORMATS,
      isCancelled: (jobId) => this.canceller.isCancelled(jobId),
      ...(env.TASK_SCRAPE_ENGINE ? { scrapeEngine: env.TASK_SCRAPE_ENGINE } : {}),
    });
    const concurrency: Record<QueueName, number> = {
      [QUEUES.batch]: env.TASK_CONCURRENCY_BATCH,
      [QUEUES.maps]: env.TASK_CONCURRENCY_MAPS,
      [QUEUES.search]: env.TASK_CONCURRENCY_SEARCH,
      [QUEUES.retail]: env.TASK_CONCURRENCY_RETAIL,
      [QUEUES.mpMaps]: env.TASK_CONCURRENCY_MP_MAPS,
      [QUEUES.mpSearch]: env.TASK_CONCURRENCY_MP_SEARCH,
      [QUEUES.scrape]: env.TASK_CONCURRENCY_SCRAPE,
    };
    this.fleets = new FleetMonitor((subject) => this.messaging.probe(subject), {
      maxWaitMs: env.TASK_FLEET_MAX_WAIT_MS,
      probeIntervalMs: env.TASK_FLEET_PROBE_INTERVAL_MS,
      onError,
      onChange: (queue, state) => {
        this.metrics?.queue.fleetPaused.set({ queue }, state === 'serving' ? 0 : 1);
        const log = `${queue}: ${state === 'serving' ? 'fleet back, taking jobs again' : `fleet away (${state})`}`;
        if (state === 'serving') this.logger.log(log);
        else this.logger.warn(log);
      },
    });
    this.workers = new TaskWorkers(this.queues, processors, this.outcomes, {
      fleets: this.fleets,
      name: env.INSTANCE_ID,
      concurrency,
      lockDurationMs: env.TASK_LOCK_DURATION_MS,
      stalledIntervalMs: env.TASK_STALLED_INTERVAL_MS,
      maxStalledCount: env.TASK_MAX_STALLED_COUNT,
      onError,
      onAttempt: (queue, outcome) => this.metrics?.queue.jobs.inc({ queue, outcome }),
      onWorkerChange: (queue, health) => {
        if (health.state === 'taking-jobs') this.logger.log(`${queue}: rebuilt worker takes jobs`);
        else this.logger.warn(`${queue}: worker takes no jobs (${health.reason}); rebuilding it`);
      },
    });
    this.workers.start();
    this.outcomes.startSweeping();
    this.outcomes.sweep().catch((e: unknown) => onError('first outcome sweep failed', e));
  }

  /** Each extractor queue's fleet as this replica sees it (readiness details): serving, paused or expired. */
  fleetStates(): Partial<Record<QueueName, FleetState>> {
    return this.fleets?.states() ?? {};
  }

  /** Each queue's worker in this replica (readiness details): taking jobs, or being rebuilt and why. */
  workerStates(): Partial<Record<QueueName, WorkerHealth>> {
    return this.workers?.states() ?? {};
  }

  /**
   * Stops the workers taking jobs and waits for the active ones (and their outcomes). Called at SIGTERM, before the
   * NATS handlers' grace period, so a stopping replica takes no new job while it waits; again (the same close) at
   * shutdown.
   */
  async stopWorkers(): Promise<void> {
    await this.workers?.close();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.stopWorkers();
    await this.outcomes?.close();
    await this.acks.close();
    await this.queues.close();
  }
}
