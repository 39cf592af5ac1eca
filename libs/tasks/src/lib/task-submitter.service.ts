import type { JobsOptions } from 'bullmq';
import {
  appendUrlParams,
  DEFAULT_JOB_OPTIONS,
  QUEUES,
  TrawlError,
  URL_QUEUE_BY_TYPE,
  type QueueName,
  type MapsBatchRequestDto,
  type SearchBatchRequestDto,
  type TaskSubmitReply,
  type TaskSubmitRequest,
  type UrlBatchRequestDto,
} from '@trawl/contracts';
import { injectTraceHeaders } from '@trawl/telemetry';
import { childJobId, newJobId } from './task-job-id.util.js';
import type { QueryJobData, QueryJobMeta, TaskJobData, TaskJobMeta } from './task-job-data.types.js';
import { clampPriority, TaskAdmission } from './task-admission.service.js';
import type { ReplicaAcks } from './replica-acks.service.js';
import type { BatchEventsPublisher } from './batch-events.publisher.js';
import { submissionFingerprint, TaskIdempotency } from './task-idempotency.service.js';
import { replyBytesOf, urlBatchReplyBytes } from './task-reply-size.policy.js';

import type { TaskQueues } from './task-queues.service.js';
import { toBatchJob } from './task-views.mapper.js';

/** What a batch's query keeps of its batch's meta: the trace, and the key it counts against. */
function queryMetaOf(meta: TaskJobMeta): QueryJobMeta {
  return {
    ...(meta.trace ? { trace: meta.trace } : {}),
    ...(meta.apiKeyId ? { quotaKeyId: meta.apiKeyId } : {}),
  };
}

/** Refuses a webhook URL that may not be called (throws a TrawlError naming `webhook`). */
export type WebhookUrlCheck = (url: string) => Promise<void>;

/** The spec's job options, as a fresh mutable object for BullMQ; `priority` (1 first) when given. */
export function jobOptions(jobId: string, priority?: number): JobsOptions & { jobId: string } {
  // Written out rather than spread (10,000 calls a batch); a test holds it equal to DEFAULT_JOB_OPTIONS.
  const { attempts, removeOnComplete, removeOnFail, backoff } = DEFAULT_JOB_OPTIONS;
  const opts: JobsOptions & { jobId: string } = {
    attempts,
    removeOnComplete,
    removeOnFail,
    backoff: { type: backoff.type, delay: backoff.delay },
    jobId,
  };
  if (priority !== undefined) opts.priority = clampPriority(priority);
  return opts;
}

export interface TaskSubmitterOptions {
  /** Most jobs a key may have queued or running (TASK_MAX_OUTSTANDING_PER_KEY). */
  maxOutstandingPerKey: number;
  /**
   * Accepted means replicated: a submission answers only once its jobs are on the required replicas, and none of them
   * runs when they are not (ADR 0015). Without it, jobs are taken as soon as they are written.
   */
  acks?: ReplicaAcks;
  /**
   * How long the jobs of a submission waiting for its confirmation are held (no worker takes them): far beyond the
   * confirmation's timeout, so the removal of an unconfirmed batch always comes first. Default: the larger of 30 s
   * and 5 × the confirmation's timeout.
   */
  holdMs?: number;
  /** Reports what goes wrong after the answer is decided (a release or a removal that failed). */
  onError?: (message: string, error: unknown) => void;
  /** Publishes `batch_scrape.started` of a URL batch with `webhookOptions` (ADR 0028); without it, per-task events. */
  batchEvents?: BatchEventsPublisher;
}

export const DEFAULT_TASK_SUBMITTER_OPTIONS: TaskSubmitterOptions = { maxOutstandingPerKey: 20_000 };

/**
 * Turns a `task.submit.v1` payload into BullMQ jobs and returns them as the spec's job objects. A URL batch is one
 * job per URL, added all-or-nothing (one MULTI); a maps or search batch is one parent job whose children (one per
 * query) run in the maps or search queue. Nothing is created when the payload or its webhook is refused, or when the
 * batch would take its key past its cap of outstanding jobs (RATE_LIMITED; each URL and each query counts). Jobs get
 * BullMQ priorities that serve keys round-robin (see TaskAdmission): a batch's queries continue its key's count, as a
 * URL batch's tasks do, so one key's many batches do not hold back another key's (ADR 0021).
 */
export class TaskSubmitter {
  readonly admission: TaskAdmission;
  private readonly options: TaskSubmitterOptions;
  readonly idempotency: TaskIdempotency;

  constructor(
    private readonly queues: TaskQueues,
    private readonly checkWebhook: WebhookUrlCheck,
    /** Largest reply the transport carries (NATS max_payload); a batch whose reply would not fit is refused. */
    private readonly maxReplyBytes: () => number = () => Number.POSITIVE_INFINITY,
    options: TaskSubmitterOptions = DEFAULT_TASK_SUBMITTER_OPTIONS,
  ) {
    this.options = options;
    this.admission = new TaskAdmission(queues.connection, options.maxOutstandingPerKey, (id) => queues.jobHashKey(id));
    this.idempotency = new TaskIdempotency(queues.connection);
  }

  /**
   * Refuses, before any job exists, a batch whose reply (its job objects, about `size` bytes for `count` jobs: see
   * `replyBytesOf`) would exceed the transport's message size: the jobs would be created but the caller would never
   * learn their ids.
   */
  private assertReplyFits(size: number, count: number): void {
    const limit = this.maxReplyBytes() - 4096;
    if (size > limit) {
      throw new TrawlError(
        'PAYLOAD_TOO_LARGE',
        `the reply to this batch (${count} jobs, about ${Math.ceil(size / 1024)} KB) exceeds the largest message (${Math.floor(limit / 1024)} KB); split the batch`,
        { field: 'body' },
      );
    }
  }

  /** Submits a `task.submit.v1` request, already checked against its row (SUBJECT_TABLE.taskSubmit). */
  async submit(req: TaskSubmitRequest): Promise<TaskSubmitReply> {
    if (req.request.webhook !== undefined) await this.checkWebhook(req.request.webhook);
    // With an Idempotency-Key, a replay of the same request answers the first reply and creates nothing.
    if (req.idempotencyKey !== undefined) {
      return this.idempotency.run(req.apiKeyId, req.idempotencyKey, submissionFingerprint(req), () =>
        this.submitParsed(req),
      );
    }
    return this.submitParsed(req);
  }

  private async submitParsed(req: TaskSubmitRequest): Promise<TaskSubmitReply> {
    // The trace the jobs continue: the handler's own span (it continues the caller's trace from the NATS headers),
    // else whatever the payload carried. Empty with tracing off.
    const current = injectTraceHeaders();
    const trace = Object.keys(current).length > 0 ? current : req.trace;
    const meta: TaskJobMeta = {
      ...(req.apiKeyId ? { apiKeyId: req.apiKeyId } : {}),
      ...(trace ? { trace } : {}),
    };
    const cap = req.maxOutstanding;
    switch (req.kind) {
      case 'url':
        return this.submitUrls(req.request, meta, cap);
      case 'maps':
        return this.submitMaps(req.request, meta, cap);
      case 'search':
        return this.submitSearch(req.request, meta, cap);
    }
  }

  private async submitUrls(req: UrlBatchRequestDto, meta: TaskJobMeta, cap?: number): Promise<TaskSubmitReply> {
    const queue = URL_QUEUE_BY_TYPE[req.type];
    const urls = req.urls.map((url) => appendUrlParams(url, req.params));
    // Every job's data is the template with its URL (the same keys in the same order).
    // With `webhookOptions` (ADR 0028) the webhook gets the batch's events: each job knows its batch and its size.
    const batchEvents =
      req.webhook !== undefined && req.webhookOptions && this.options.batchEvents
        ? { options: req.webhookOptions, total: urls.length }
        : undefined;
    const template: TaskJobData & { url: string } = {
      kind: 'url',
      url: '',
      timeout: req.timeout,
      ...(req.webhook !== undefined ? { webhook: req.webhook } : {}),
      type: req.type,
      ...(req.params ? { params: req.params } : {}),
      ...(req.engine ? { engine: req.engine } : {}),
      // `meta` is a parsed record's (docs/result-meta.md): a scrape has its page metadata instead.
      ...(req.meta && req.type !== 'scrape' ? { meta: true } : {}),
      ...(req.scrapeOptions ? { scrapeOptions: req.scrapeOptions } : {}),
      ...meta,
      ...(batchEvents ? { batchEvents } : {}),
    };
    this.assertReplyFits(urlBatchReplyBytes(template, urls), urls.length);
    const data: TaskJobData[] = urls.map((url) => ({ ...template, url }));
    const required = await this.requiredAcks();
    const holdMs = required > 0 ? this.holdMs() : undefined;
    const added = await this.admission.admit(meta.apiKeyId, data.length, cap, async (first, track) => {
      const jobs = data.map((d, i) => ({ name: req.type, data: d, opts: jobOptions(newJobId(queue), first + i) }));
      return this.queues.addAllOrNothing(
        queue,
        jobs,
        (multi) =>
          track(
            multi,
            jobs.map((j) => j.opts.jobId),
          ),
        holdMs,
      );
    });
    if (holdMs !== undefined) {
      const ids = added.map((j) => String(j.id));
      await this.confirmOrDiscard(queue, required, holdMs, {
        release: () => this.queues.releaseHeld(queue, ids),
        discard: () =>
          this.queues.discardHeld(queue, ids, (multi) => this.admission.untrackIn(multi, meta.apiKeyId, ids)),
      });
    }
    if (batchEvents && req.webhook !== undefined) {
      // After the jobs exist (a page may already have finished: the receiver does not rely on the order). Stored once
      // under `batchEventId(…, 'started')`; a publish that fails is reported, the batch goes on.
      await this.options.batchEvents
        ?.started({
          webhook: req.webhook,
          options: batchEvents.options,
          total: batchEvents.total,
          ...(meta.apiKeyId ? { apiKeyId: meta.apiKeyId } : {}),
        })
        .catch((e: unknown) =>
          this.options.onError?.(`batch ${batchEvents.options.batchId}: its started event not published`, e),
        );
    }
    return { jobs: added.map(toBatchJob) };
  }

  /** Replicas that must confirm a submission; 0 without confirmations or where the master has no replicas. */
  private async requiredAcks(): Promise<number> {
    const acks = this.options.acks;
    if (!acks) return 0;
    try {
      return await acks.required();
    } catch (e) {
      throw new TrawlError(
        'SERVICE_UNAVAILABLE',
        `Redis did not answer: ${e instanceof Error ? e.message : String(e)}`,
        {
          cause: e,
        },
      );
    }
  }

  private holdMs(): number {
    return this.options.holdMs ?? Math.max(30_000, 5 * (this.options.acks?.timeoutMs ?? 0));
  }

  /**
   * Held jobs were written: waits for their confirmation on the replicas, then releases them (a failed release only
   * delays them: their hold runs out). Unconfirmed, they are removed before their hold could run out, and the call
   * fails with SERVICE_UNAVAILABLE (retryable). A removal that fails is retried until shortly before the hold ends.
   */
  private async confirmOrDiscard(
    queue: QueueName,
    required: number,
    holdMs: number,
    held: { release: () => Promise<void>; discard: () => Promise<string[]> },
  ): Promise<void> {
    const acks = this.options.acks;
    if (!acks) return;
    const holdEnds = Date.now() + holdMs - acks.timeoutMs;
    try {
      await acks.confirm(this.queues.ackKey(queue), required);
    } catch (e) {
      const discarded = this.discardUntil(held.discard, holdEnds);
      // The answer waits for the first removal; a removal that has to be retried goes on after it.
      await Promise.race([discarded, new Promise((r) => setTimeout(r, acks.timeoutMs))]);
      throw e;
    }
    await held.release().catch((e: unknown) => this.options.onError?.(`releasing held jobs of ${queue}`, e));
  }

  private async discardUntil(discard: () => Promise<string[]>, until: number): Promise<void> {
    for (;;) {
      try {
        const kept = await discard();
        if (kept.length > 0)
          this.options.onError?.(
            `unconfirmed batch: ${kept.length} job(s) had started before their removal`,
            new Error(kept.slice(0, 10).join(', ')),
          );
        return;
      } catch (e) {
        if (Date.now() >= until) {
          this.options.onError?.(
            'an unconfirmed batch could not be removed; its jobs will run when their hold ends',
            e,
          );
          return;
        }
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  private async submitMaps(req: MapsBatchRequestDto, meta: TaskJobMeta, cap?: number): Promise<TaskSubmitReply> {
    const { querys, ll, hl, start, num, timeout, webhook } = req;
    const engine = req.engine ? { engine: req.engine } : {};
    const withMeta = req.meta ? { meta: true } : {};
    const data: TaskJobData = {
      kind: 'maps',
      querys,
      ll,
      hl,
      start,
      num,
      timeout,
      webhook,
      ...engine,
      ...withMeta,
      ...meta,
    };
    const children = querys.map((q): QueryJobData => ({
      kind: 'maps-query',
      request: { q, ll, hl, start, num, timeout, ...engine, ...withMeta },
      ...queryMetaOf(meta),
    }));
    return this.submitFlow('maps-batch', 'maps-query', QUEUES.maps, data, children, meta.apiKeyId, cap);
  }

  private async submitSearch(req: SearchBatchRequestDto, meta: TaskJobMeta, cap?: number): Promise<TaskSubmitReply> {
    const { querys, start, num, hl, gl, cr, lr, timeout, webhook } = req;
    const optional = { ...(cr ? { cr } : {}), ...(lr ? { lr } : {}) };
    const engine = req.engine ? { engine: req.engine } : {};
    const withMeta = req.meta ? { meta: true } : {};
    const data: TaskJobData = {
      kind: 'search',
      querys,
      start,
      num,
      hl,
      gl,
      ...optional,
      timeout,
      webhook,
      ...engine,
      ...withMeta,
      ...meta,
    };
    const children = querys.map((q): QueryJobData => ({
      kind: 'search-query',
      request: { q, start, num, hl, gl, ...optional, timeout, ...engine, ...withMeta },
      ...queryMetaOf(meta),
    }));
    return this.submitFlow('search-batch', 'search-query', QUEUES.search, data, children, meta.apiKeyId, cap);
  }

  private async submitFlow(
    name: string,
    childName: string,
    childQueue: typeof QUEUES.maps | typeof QUEUES.search,
    data: TaskJobData,
    children: QueryJobData[],
    apiKeyId: string | undefined,
    cap: number | undefined,
  ): Promise<TaskSubmitReply> {
    this.assertReplyFits(replyBytesOf([data]), 1);
    const parentId = newJobId(QUEUES.batch);
    const childIds = children.map((_, i) => childJobId(childQueue, parentId, i));
    const required = await this.requiredAcks();
    const holdMs = required > 0 ? this.holdMs() : undefined;
    const hold = holdMs !== undefined ? { delay: holdMs } : {};
    // Each query counts against the key's cap and takes the key's next position, as a URL task does; the parent only
    // gathers their results and is not counted.
    const reply = await this.admission.admit(apiKeyId, children.length, cap, async (first) => {
      // FlowProducer adds the flow in its own MULTI: the queries are counted just before, and uncounted if that fails.
      await this.admission.track(apiKeyId, childIds);
      try {
        const node = await this.queues.flows.add({
          name,
          queueName: QUEUES.batch,
          data,
          opts: jobOptions(parentId, first),
          children: children.map((child, i) => ({
            name: childName,
            queueName: childQueue,
            data: child,
            // A failed query must not leave the batch waiting forever: the parent runs once every child settled.
            opts: {
              ...jobOptions(childIds[i], first + i),
              ignoreDependencyOnFailure: true,
              ...hold,
            },
          })),
        });
        return { jobs: [toBatchJob(node.job)] };
      } catch (e) {
        await this.admission.untrack(apiKeyId, childIds).catch(() => undefined);
        throw e;
      }
    });
    if (holdMs !== undefined) {
      // The children are held (the parent waits for them): released together, or removed with the parent.
      await this.confirmOrDiscard(childQueue, required, holdMs, {
        release: () => this.queues.releaseHeld(childQueue, childIds),
        discard: () =>
          this.queues.discardHeld(QUEUES.batch, [parentId], (multi) =>
            this.admission.untrackIn(multi, apiKeyId, [parentId, ...childIds]),
          ),
      });
    }
    return reply;
  }
}
