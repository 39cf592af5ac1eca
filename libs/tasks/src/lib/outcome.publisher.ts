import type { Job } from 'bullmq';
import type { JetStreamClient } from '@nats-io/jetstream';
import { headers as natsHeaders, type MsgHdrs } from '@nats-io/nats-core';
import { QUEUES, SUBJECTS, URL_QUEUE_BY_TYPE, type QueueName, type TaskFinishedEvent } from '@trawl/contracts';
import { injectTraceHeaders, SpanKind, traced, tracingActive, withExtractedContext } from '@trawl/telemetry';
import type { BatchEventsPublisher } from './batch-events.publisher.js';
import type { ReplicaAcks } from './replica-acks.service.js';
import { countedIdsOf, releaseOutstandingOf } from './task-admission.service.js';
import { PUBLISHED_OUTCOMES_KEY } from './task-redis-keys.constants.js';
import type { TaskJobData } from './task-job-data.types.js';
import type { TaskQueues } from './task-queues.service.js';
import { toTaskRecord } from './task-views.mapper.js';

/** Queues whose jobs are tasks the caller sees (and so have an outcome): batch parents and URL tasks. */
export const OUTCOME_QUEUES: QueueName[] = [QUEUES.batch, ...new Set(Object.values(URL_QUEUE_BY_TYPE))];

export interface OutcomePublisherOptions {
  /** Publish attempts before leaving the outcome to the sweep. */
  publishAttempts: number;
  /** Pause between publish attempts, ms (doubles each time). */
  publishRetryDelayMs: number;
  /** Deadline of one publish (the JetStream ack), ms. */
  publishTimeoutMs: number;
  /**
   * How long a publish keeps being retried past `publishAttempts`, ms: long enough for a JetStream cluster to elect a
   * new leader for the stream after its leader's node is lost (meanwhile publishes fail with `jetstream is not
   * enabled`, no responders or time-outs). 0: `publishAttempts` only.
   */
  publishRideOutMs: number;
  /** Outcomes the sweep publishes at once. */
  sweepConcurrency: number;
  /** How far back the sweep looks for unpublished outcomes; at most the stream's duplicate window. */
  sweepWindowMs: number;
  /** Jobs finished more recently than this are left to their own publish, ms. */
  sweepGraceMs: number;
  sweepIntervalMs: number;
  onError?: (message: string, error: unknown) => void;
  /** Publishes the page events of URL batches submitted with `webhookOptions` (ADR 0028) instead of their outcomes. */
  batchEvents?: BatchEventsPublisher;
  /**
   * Published means replicated (ADR 0044): with it, an outcome is published only once the job's end is on the
   * replicas that submissions wait for.
   */
  acks?: ReplicaAcks;
}

export const DEFAULT_OUTCOME_PUBLISHER_OPTIONS: OutcomePublisherOptions = {
  publishAttempts: 5,
  publishRetryDelayMs: 200,
  publishTimeoutMs: 5000,
  publishRideOutMs: 30_000,
  sweepConcurrency: 32,
  sweepWindowMs: 60 * 60 * 1000,
  sweepGraceMs: 10_000,
  sweepIntervalMs: 30_000,
};

/** The stable id of a job's outcome: the same on every re-publish, so JetStream stores it once. */
export function outcomeEventId(jobId: string, finishedOn: number): string {
  return `${jobId}-${finishedOn}`;
}

/**
 * Publishes one TaskFinishedEvent per job that reached its final state (completed, or failed after its last
 * attempt) on JetStream, with the event id as `Nats-Msg-Id` so a re-publish is not a second outcome. A publish that
 * fails (NATS down) is retried; what still is not published is found by the sweep, which looks through recently
 * finished jobs in Redis for outcomes without a "published" mark and publishes them. So an outcome is published at
 * least once and stored once, even if the process dies between finishing a job and publishing.
 */
export class OutcomePublisher {
  private readonly encoder = new TextEncoder();
  private readonly publishedKey: string;
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<void> | undefined;
  private closed = false;

  constructor(
    private readonly js: JetStreamClient,
    private readonly queues: TaskQueues,
    private readonly maxPayloadBytes: () => number,
    private readonly options: OutcomePublisherOptions = DEFAULT_OUTCOME_PUBLISHER_OPTIONS,
  ) {
    this.publishedKey = PUBLISHED_OUTCOMES_KEY;
  }

  /** Called when a job of an outcome queue settled an attempt: publishes if that was its final state. */
  async jobSettled(queue: QueueName, jobId: string): Promise<void> {
    // State first: a final state is final, so the job read after it is the finished job.
    const state = await this.queues.queue(queue).getJobState(jobId);
    if (state !== 'completed' && state !== 'failed') return;
    const job = await this.queues.readJob(queue, jobId);
    if (job) await this.publish(job, state);
  }

  /**
   * Publishes the outcome of a finished job (retrying), then marks it published. With tracing on this is a PRODUCER
   * span in the job's trace, and the message's headers carry its context (the event's `trace` the job's).
   */
  async publish(job: Job<TaskJobData>, state: 'completed' | 'failed'): Promise<void> {
    if (!tracingActive()) return this.publishEvent(job, state);
    return withExtractedContext(job.data.trace, () =>
      traced(`send ${SUBJECTS.taskFinished}`, () => this.publishEvent(job, state, traceHeaders()), {
        kind: SpanKind.PRODUCER,
        attributes: {
          'messaging.system': 'nats',
          'messaging.destination.name': SUBJECTS.taskFinished,
          'messaging.message.id': String(job.id),
          'messaging.operation.type': 'send',
        },
      }),
    );
  }

  private async publishEvent(job: Job<TaskJobData>, state: 'completed' | 'failed', headers?: MsgHdrs): Promise<void> {
    if (!(await this.endIsReplicated(job))) return;
    // A final state: the job (a batch: its queries) no longer counts against its key's cap (idempotent); a success is
    // the key's last one (its queue status, ADR 0041).
    const counted = countedIdsOf(String(job.id), job.data);
    const succeededAt = state === 'completed' ? (job.finishedOn ?? Date.now()) : undefined;
    await releaseOutstandingOf(this.queues.connection, job.data.apiKeyId, counted, succeededAt).catch((e: unknown) =>
      this.options.onError?.(`job ${job.id} not released from its key's outstanding jobs`, e),
    );
    const event = this.eventOf(job, state);
    // A page of a batch whose webhook wants batch events: its `batch_scrape.page` (and, last, the batch's
    // `batch_scrape.completed`) instead of the task's outcome; the published mark only once all of that is stored.
    const batch = job.data.batchEvents;
    const batchEvents = this.options.batchEvents;
    const send =
      batch && batchEvents && job.data.webhook !== undefined
        ? () =>
            batchEvents.page(
              {
                webhook: job.data.webhook as string,
                options: batch.options,
                total: batch.total,
                ...(job.data.apiKeyId ? { apiKeyId: job.data.apiKeyId } : {}),
              },
              String(job.id),
              event.eventId,
              event.task,
              headers,
            )
        : () =>
            this.js
              .publish(SUBJECTS.taskFinished, this.encode(event), {
                msgID: event.eventId,
                timeout: this.options.publishTimeoutMs,
                ...(headers ? { headers } : {}),
              })
              .then(() => undefined);
    let delay = this.options.publishRetryDelayMs;
    const rideOutUntil = Date.now() + this.options.publishRideOutMs;
    for (let attempt = 1; ; attempt++) {
      try {
        await send();
        break;
      } catch (e) {
        if ((attempt >= this.options.publishAttempts && Date.now() >= rideOutUntil) || this.closed) {
          this.options.onError?.(`outcome ${event.eventId} not published yet (the sweep will retry)`, e);
          return;
        }
        await new Promise((r) => setTimeout(r, delay));
        delay = Math.min(delay * 2, MAX_RETRY_DELAY_MS);
      }
    }
    await this.queues.connection.zadd(this.publishedKey, event.task.finishedOn ?? Date.now(), event.eventId);
  }

  /**
   * Whether the job's end may be announced: it is on the replicas (ReplicaAcks.confirmFinished). An end that a lost
   * master took with it is never announced (the promoted master still has the job running: it is taken back and runs
   * again, and that end is the one announced, so a task has one outcome); one not confirmed in time is left to the
   * sweep, which asks again.
   */
  private async endIsReplicated(job: Job<TaskJobData>): Promise<boolean> {
    const acks = this.options.acks;
    if (!acks || job.finishedOn === undefined) return true;
    const queue = job.queueName as QueueName;
    try {
      const required = await acks.required();
      const jobKey = this.queues.queue(queue).toKey(String(job.id));
      if (await acks.confirmFinished(this.queues.ackKey(queue), required, jobKey, job.finishedOn)) return true;
      this.options.onError?.(
        `outcome ${outcomeEventId(String(job.id), job.finishedOn)} not published`,
        new Error("the Redis master that took the job's end was lost before a replica had it; the job runs again"),
      );
    } catch (e) {
      this.options.onError?.(`outcome of job ${job.id} not published yet (the sweep will retry)`, e);
    }
    return false;
  }

  /** Looks through recently finished jobs for outcomes not yet published, and publishes them. */
  sweep(): Promise<void> {
    this.sweeping ??= this.runSweep().finally(() => (this.sweeping = undefined));
    return this.sweeping;
  }

  startSweeping(): void {
    this.timer = setInterval(() => {
      this.sweep().catch((e: unknown) => this.options.onError?.('outcome sweep failed', e));
    }, this.options.sweepIntervalMs);
    this.timer.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    await this.sweeping?.catch(() => undefined);
  }

  private async runSweep(): Promise<void> {
    const redis = this.queues.connection;
    const now = Date.now();
    const from = now - this.options.sweepWindowMs;
    const to = now - this.options.sweepGraceMs;
    await redis.zremrangebyscore(this.publishedKey, '-inf', from - this.options.sweepWindowMs);
    for (const name of OUTCOME_QUEUES) {
      const queue = this.queues.queue(name);
      for (const state of ['completed', 'failed'] as const) {
        // The finished set's score is the job's finishedOn, so the event ids (and their marks) are known before any
        // job is read: only jobs whose outcome has no mark are loaded.
        const flat = await redis.zrangebyscore(queue.keys[state], from, to, 'WITHSCORES');
        for (let i = 0; i < flat.length && !this.closed; i += 1000) {
          const chunk = flat.slice(i, i + 1000);
          const ids: string[] = [];
          const eventIds: string[] = [];
          for (let k = 0; k < chunk.length; k += 2) {
            ids.push(chunk[k]);
            eventIds.push(outcomeEventId(chunk[k], Number(chunk[k + 1])));
          }
          const marks = await redis.zmscore(this.publishedKey, ...eventIds);
          const unpublished = ids.filter((_, k) => marks[k] === null);
          // Concurrently, at most `sweepConcurrency` at once: after an outage thousands may wait, each a round trip.
          await inBatches(unpublished, this.options.sweepConcurrency, async (id) => {
            if (this.closed) return;
            const job = await this.queues.readJob(name, id);
            if (job?.finishedOn !== undefined) await this.publish(job, state);
          });
        }
      }
    }
  }

  private eventOf(job: Job<TaskJobData>, state: 'completed' | 'failed'): TaskFinishedEvent {
    const task = toTaskRecord(job, state);
    const finishedOn = job.finishedOn ?? job.processedOn ?? job.timestamp;
    return {
      eventId: outcomeEventId(String(job.id), finishedOn),
      event: state === 'completed' ? 'task.completed' : 'task.failed',
      ...(job.data.webhook !== undefined ? { webhook: job.data.webhook } : {}),
      ...(job.data.apiKeyId ? { apiKeyId: job.data.apiKeyId } : {}),
      task,
      ...(job.data.trace ? { trace: job.data.trace } : {}),
      occurredAt: finishedOn,
    };
  }

  /** The event as bytes; a result too large for one NATS message is left out and named (lookup still has it). */
  private encode(event: TaskFinishedEvent): Uint8Array {
    const bytes = this.encoder.encode(JSON.stringify(event));
    if (bytes.length <= this.maxPayloadBytes() - 1024) return bytes;
    const slim: TaskFinishedEvent = {
      ...event,
      task: {
        ...event.task,
        data: null,
        error: {
          code: 'PAYLOAD_TOO_LARGE',
          message: `the result (${bytes.length} bytes) is too large for a webhook; read it with GET /extractTask/${event.task.taskId}`,
          retryable: false,
        },
      },
    };
    return this.encoder.encode(JSON.stringify(slim));
  }
}

/** Longest pause between two publish attempts, ms. */
const MAX_RETRY_DELAY_MS = 2000;

/** Runs `fn` on every item, at most `concurrency` at once; rejects with the first failure once all have settled. */
async function inBatches<T>(items: readonly T[], concurrency: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const lane = async () => {
    while (next < items.length) {
      const item = items[next++];
      await fn(item).catch((error: unknown) => (failure ??= { error }));
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, lane));
  if (failure) throw failure.error;
}

/** The active trace context as NATS message headers. */
function traceHeaders(): MsgHdrs | undefined {
  const trace = Object.entries(injectTraceHeaders());
  if (trace.length === 0) return undefined;
  const hdrs = natsHeaders();
  for (const [k, v] of trace) hdrs.set(k, v);
  return hdrs;
}
