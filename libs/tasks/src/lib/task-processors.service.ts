import { UnrecoverableError, type Job } from 'bullmq';
import {
  extractUrlCall,
  SUBJECTS,
  TrawlError,
  type BatchQueryOutcome,
  type BatchTaskResult,
  type ScrapeEngine,
  type ScrapeFormat,
  type UrlJobData,
} from '@trawl/contracts';
import type { MessagingClient } from '@trawl/messaging';
import { taskCancelledError } from './task-canceller.service.js';
import { toAttemptError, wireErrorOf } from './task-error.mapper.js';
import { childIndexOf } from './task-job-id.util.js';
import type { QueryJobData, TaskJobData } from './task-job-data.types.js';

/** The part of the messaging client the processors use (extractors over NATS request/reply). */
export type ExtractorClient = Pick<MessagingClient, 'send'>;

export interface TaskProcessorsOptions {
  /** Engine asked for `scrape` URL tasks; the extractor's default when undefined. */
  scrapeEngine?: ScrapeEngine;
  scrapeFormats: ScrapeFormat[];
  /**
   * How long a request rides out "no responders" before the attempt counts as an outage (the job is put back and its
   * queue paused, see FleetMonitor): a short gap, such as a rolling update's, passes unnoticed. Default 500 ms.
   */
  rideOutMs?: number;
  /**
   * Whether the job was cancelled (TaskCanceller.isCancelled). Asked before a job runs and every `cancelPollMs` while
   * it waits for its extractor: a cancelled job fails with TASK_CANCELLED and its extractor's answer is discarded.
   * Without it, jobs are never cancelled.
   */
  isCancelled?: (jobId: string) => Promise<boolean>;
  /** How often a running job looks for its cancellation, ms. Default 500. */
  cancelPollMs?: number;
}

const DEFAULT_RIDE_OUT_MS = 500;
const DEFAULT_CANCEL_POLL_MS = 500;

/** What a query child returns; the batch parent gathers these. */
export interface QueryJobResult {
  data: unknown;
}

/**
 * The work of each queue: a URL task or a batch query asks its extractor over NATS with the job's timeout as the
 * deadline; a batch parent gathers its children's results. A failed attempt throws what `toAttemptError` makes of
 * the error, so retryable causes are retried per the job's options and permanent ones fail the job at once.
 */
export class TaskProcessors {
  constructor(
    private readonly extractors: ExtractorClient,
    private readonly options: TaskProcessorsOptions,
  ) {}

  /** `lockLost` (BullMQ's signal): the job's lock was lost and another worker runs it; this attempt's request is abandoned. */
  async runUrl(job: Job<TaskJobData>, lockLost?: AbortSignal): Promise<unknown> {
    const data = job.data;
    if (data.kind !== 'url') throw new UnrecoverableError(`INTERNAL: job ${job.id} is not a URL task`);
    try {
      return await this.unlessCancelled(job, (abandon) => this.extract(data, abandon), lockLost);
    } catch (e) {
      throw toAttemptError(e);
    }
  }

  async runQuery(job: Job<QueryJobData>, lockLost?: AbortSignal): Promise<QueryJobResult> {
    const { data } = job;
    try {
      return await this.unlessCancelled(
        job,
        async (abandon) => {
          const deadline = { ...this.deadline(data.request.timeout), abandon };
          if (data.kind === 'maps-query')
            return { data: await this.extractors.send(SUBJECTS.searchMaps, data.request, deadline) };
          return { data: await this.extractors.send(SUBJECTS.searchWeb, data.request, deadline) };
        },
        lockLost,
      );
    } catch (e) {
      throw toAttemptError(e);
    }
  }

  /** Runs once every child settled: one outcome per query, in the order of `querys`. Fails only if all failed. */
  async runBatch(job: Job<TaskJobData>): Promise<BatchTaskResult> {
    const data = job.data;
    if (data.kind === 'url') throw new UnrecoverableError(`INTERNAL: job ${job.id} is not a batch`);
    if (await this.cancelled(String(job.id))) throw toAttemptError(taskCancelledError(String(job.id)));
    const results: (BatchQueryOutcome | undefined)[] = new Array(data.querys.length).fill(undefined);
    const values = await job.getChildrenValues<QueryJobResult>();
    for (const [key, value] of Object.entries(values)) {
      const i = childIndexOf(key);
      results[i] = { query: data.querys[i], status: 'completed', data: value.data };
    }
    const failures = await job.getIgnoredChildrenFailures();
    for (const [key, reason] of Object.entries(failures)) {
      const i = childIndexOf(key);
      results[i] = { query: data.querys[i], status: 'failed', error: wireErrorOf(String(reason)) ?? unknownError() };
    }
    const settled = results.map(
      (r, i): BatchQueryOutcome => r ?? { query: data.querys[i], status: 'failed', error: unknownError() },
    );
    const completed = settled.filter((r) => r.status === 'completed').length;
    await job.updateProgress(100);
    if (completed === 0) {
      const first = settled[0];
      const cause = first.status === 'failed' ? first.error : unknownError();
      throw toAttemptError(
        new TrawlError(cause.code, `all ${settled.length} queries failed (first: ${cause.message})`, {
          retryable: false,
        }),
      );
    }
    return { results: settled, completed, failed: settled.length - completed };
  }

  /**
   * Runs `work` unless the job was cancelled: a cancelled job fails with TASK_CANCELLED before its extractor is
   * asked; while it waits for its extractor the mark is looked for every cancelPollMs, and a cancelled job stops
   * waiting (the late answer is discarded) and aborts `work`'s signal, which tells the extractor running it to stop
   * (ADR 0043); an answer that arrives after the cancel is discarded too. The signal aborts too when the job's lock was
   * lost (`lockLost`): another worker runs the job, so this attempt's extractor may stop.
   */
  private async unlessCancelled<T>(
    job: Job,
    work: (abandon: AbortSignal) => Promise<T>,
    lockLost?: AbortSignal,
  ): Promise<T> {
    const abandon = new AbortController();
    const onLockLost = () =>
      abandon.abort(new TrawlError('SERVICE_UNAVAILABLE', `job ${job.id}: its lock was lost`, { retryable: true }));
    if (lockLost?.aborted) onLockLost();
    else lockLost?.addEventListener('abort', onLockLost, { once: true });
    try {
      return await this.watchCancel(job, work, abandon);
    } finally {
      lockLost?.removeEventListener('abort', onLockLost);
    }
  }

  /** The cancel watch of `unlessCancelled`: polls the mark while `work` runs, aborting `abandon` when it appears. */
  private async watchCancel<T>(
    job: Job,
    work: (abandon: AbortSignal) => Promise<T>,
    abandon: AbortController,
  ): Promise<T> {
    if (!this.options.isCancelled) return work(abandon.signal);
    const id = String(job.id);
    const isCancelled = () => this.cancelled(id);
    if (await isCancelled()) throw taskCancelledError(id);
    let timer: NodeJS.Timeout | undefined;
    let done = false;
    const watch = new Promise<never>((_, reject) => {
      const tick = () => {
        timer = setTimeout(() => {
          void isCancelled().then((cancelled) => {
            if (!cancelled) return done || tick();
            const error = taskCancelledError(id);
            abandon.abort(error);
            reject(error);
          });
        }, this.options.cancelPollMs ?? DEFAULT_CANCEL_POLL_MS);
      };
      tick();
    });
    try {
      const result = await Promise.race([work(abandon.signal), watch]);
      if (await isCancelled()) throw taskCancelledError(id);
      return result;
    } finally {
      done = true;
      clearTimeout(timer);
    }
  }

  /** Whether job `id` was cancelled; a failed read (Redis away) is "no": it must not fail the job. */
  private async cancelled(id: string): Promise<boolean> {
    return (await this.options.isCancelled?.(id).catch(() => false)) ?? false;
  }

  private deadline(timeoutMs: number) {
    return { timeoutMs, rideOutMs: this.options.rideOutMs ?? DEFAULT_RIDE_OUT_MS };
  }

  private extract(data: UrlJobData & TaskJobData, abandon: AbortSignal): Promise<unknown> {
    // The worker runs the job inside its trace (TaskWorkers), so the request carries it without extra headers.
    const deadline = { ...this.deadline(data.timeout), abandon };
    const call = extractUrlCall(
      data.type,
      // The tenant is the key that submitted the job (stored by the platform, not a caller's field).
      {
        url: data.url,
        timeout: data.timeout,
        params: data.params,
        engine: data.engine,
        meta: data.meta,
        tenant: data.apiKeyId,
        ...(data.scrapeOptions ? { scrapeOptions: data.scrapeOptions } : {}),
      },
      { formats: this.options.scrapeFormats, engine: this.options.scrapeEngine },
    );
    return this.extractors.send(call.subject, call.payload, deadline);
  }
}

function unknownError() {
  return { code: 'INTERNAL' as const, message: 'the query left no result', retryable: false };
}
