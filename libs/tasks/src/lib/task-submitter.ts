import type { JobsOptions } from 'bullmq';
import {
  appendUrlParams,
  DEFAULT_JOB_OPTIONS,
  QUEUES,
  TrawlError,
  URL_QUEUE_BY_TYPE,
  type MapsBatchRequestDto,
  type SearchBatchRequestDto,
  type TaskSubmitReply,
  type UrlBatchRequestDto,
} from '@trawl/contracts';
import { injectTraceHeaders } from '@trawl/telemetry';
import { childJobId, newJobId } from './task-job-id.js';
import type { QueryJobData, TaskJobData, TaskJobMeta } from './task-job-data.js';
import { parseTaskSubmitRequest } from './task-submit-request.js';
import type { TaskQueues } from './task-queues.js';
import { toBatchJob } from './task-views.js';

/** Refuses a webhook URL that may not be called (throws a TrawlError naming `webhook`). */
export type WebhookUrlCheck = (url: string) => Promise<void>;

/** The spec's job options, as a fresh mutable object for BullMQ. */
export function jobOptions(jobId: string): JobsOptions & { jobId: string } {
  return { ...DEFAULT_JOB_OPTIONS, backoff: { ...DEFAULT_JOB_OPTIONS.backoff }, jobId };
}

/**
 * Turns a `task.submit.v1` payload into BullMQ jobs and returns them as the spec's job objects. A URL batch is one
 * job per URL, added all-or-nothing (one MULTI); a maps or search batch is one parent job whose children (one per
 * query) run in the maps or search queue. Nothing is created when the payload or its webhook is refused.
 */
export class TaskSubmitter {
  constructor(
    private readonly queues: TaskQueues,
    private readonly checkWebhook: WebhookUrlCheck,
    /** Largest reply the transport carries (NATS max_payload); a batch whose reply would not fit is refused. */
    private readonly maxReplyBytes: () => number = () => Number.POSITIVE_INFINITY,
  ) {}

  /**
   * Refuses, before any job exists, a batch whose reply (its job objects) would exceed the transport's message size:
   * the jobs would be created but the caller would never learn their ids.
   */
  private assertReplyFits(data: TaskJobData[]): void {
    const limit = this.maxReplyBytes() - 4096;
    // Per job: the data echo plus ~400 bytes of fixed fields (name, opts, 43-character id, timestamp, ...).
    let size = 0;
    for (const d of data) size += Buffer.byteLength(JSON.stringify(d)) + 400;
    if (size > limit) {
      throw new TrawlError(
        'PAYLOAD_TOO_LARGE',
        `the reply to this batch (${data.length} jobs, about ${Math.ceil(size / 1024)} KB) exceeds the largest message (${Math.floor(limit / 1024)} KB); split the batch`,
        { field: 'body' },
      );
    }
  }

  async submit(payload: unknown): Promise<TaskSubmitReply> {
    const req = parseTaskSubmitRequest(payload);
    await this.checkWebhook(req.request.webhook);
    // The trace the jobs continue: the handler's own span (it continues the caller's trace from the NATS headers),
    // else whatever the payload carried. Empty with tracing off.
    const current = injectTraceHeaders();
    const trace = Object.keys(current).length > 0 ? current : req.trace;
    const meta: TaskJobMeta = {
      ...(req.apiKeyId ? { apiKeyId: req.apiKeyId } : {}),
      ...(trace ? { trace } : {}),
    };
    switch (req.kind) {
      case 'url':
        return this.submitUrls(req.request, meta);
      case 'maps':
        return this.submitMaps(req.request, meta);
      case 'search':
        return this.submitSearch(req.request, meta);
    }
  }

  private async submitUrls(req: UrlBatchRequestDto, meta: TaskJobMeta): Promise<TaskSubmitReply> {
    const queue = URL_QUEUE_BY_TYPE[req.type];
    const jobs = req.urls.map((url) => {
      const data: TaskJobData = {
        kind: 'url',
        url: appendUrlParams(url, req.params),
        timeout: req.timeout,
        webhook: req.webhook,
        type: req.type,
        ...(req.params ? { params: req.params } : {}),
        ...(req.engine ? { engine: req.engine } : {}),
        ...meta,
      };
      return { name: req.type, data, opts: jobOptions(newJobId(queue)) };
    });
    this.assertReplyFits(jobs.map((j) => j.data));
    const added = await this.queues.addAllOrNothing(queue, jobs);
    return { jobs: added.map(toBatchJob) };
  }

  private async submitMaps(req: MapsBatchRequestDto, meta: TaskJobMeta): Promise<TaskSubmitReply> {
    const { querys, ll, hl, start, num, timeout, webhook } = req;
    const engine = req.engine ? { engine: req.engine } : {};
    const data: TaskJobData = { kind: 'maps', querys, ll, hl, start, num, timeout, webhook, ...engine, ...meta };
    const children = querys.map((q): QueryJobData => ({
      kind: 'maps-query',
      request: { q, ll, hl, start, num, timeout, ...engine },
      ...(meta.trace ? { trace: meta.trace } : {}),
    }));
    return this.submitFlow('maps-batch', 'maps-query', QUEUES.maps, data, children);
  }

  private async submitSearch(req: SearchBatchRequestDto, meta: TaskJobMeta): Promise<TaskSubmitReply> {
    const { querys, start, num, hl, gl, cr, lr, timeout, webhook } = req;
    const optional = { ...(cr ? { cr } : {}), ...(lr ? { lr } : {}) };
    const engine = req.engine ? { engine: req.engine } : {};
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
      ...meta,
    };
    const children = querys.map((q): QueryJobData => ({
      kind: 'search-query',
      request: { q, start, num, hl, gl, ...optional, timeout, ...engine },
      ...(meta.trace ? { trace: meta.trace } : {}),
    }));
    return this.submitFlow('search-batch', 'search-query', QUEUES.search, data, children);
  }

  private async submitFlow(
    name: string,
    childName: string,
    childQueue: typeof QUEUES.maps | typeof QUEUES.search,
    data: TaskJobData,
    children: QueryJobData[],
  ): Promise<TaskSubmitReply> {
    this.assertReplyFits([data]);
    const parentId = newJobId(QUEUES.batch);
    const node = await this.queues.flows.add({
      name,
      queueName: QUEUES.batch,
      data,
      opts: jobOptions(parentId),
      children: children.map((child, i) => ({
        name: childName,
        queueName: childQueue,
        data: child,
        // A failed query must not leave the batch waiting forever: the parent runs once every child settled.
        opts: { ...jobOptions(childJobId(childQueue, parentId, i)), ignoreDependencyOnFailure: true },
      })),
    });
    return { jobs: [toBatchJob(node.job)] };
  }
}
