import { createHash } from 'node:crypto';
import type { JetStreamClient } from '@nats-io/jetstream';
import type { MsgHdrs } from '@nats-io/nats-core';
import {
  SUBJECTS,
  type BatchEventBody,
  type BatchScrapeEventName,
  type BatchWebhookEvent,
  type CrawlDocument,
  type ScrapeResult,
  type TaskRecord,
  type UrlBatchWebhookOptionsDto,
} from '@trawl/contracts';
import type { BatchPagesStore } from './batch-pages.store.js';

/** What the jobs of a URL batch submitted with `webhookOptions` keep of it: where and how its events go. */
export interface BatchEventsTarget {
  webhook: string;
  options: UrlBatchWebhookOptionsDto;
  /** Jobs (URLs) of the batch: `batch_scrape.completed` is due once this many have finished. */
  total: number;
  apiKeyId?: string;
}

export interface BatchEventsOptions {
  attempts: number;
  retryDelayMs: number;
  timeoutMs: number;
  /** The NATS payload limit: a page event larger than it goes without its document (its error names why). */
  maxPayloadBytes: () => number;
}

export const DEFAULT_BATCH_EVENTS_OPTIONS: Omit<BatchEventsOptions, 'maxPayloadBytes'> = {
  attempts: 5,
  retryDelayMs: 200,
  timeoutMs: 5000,
};

/** A task's scrape result as a crawl page's document (its `sourceURL` the URL asked for, `statusCode` the page's). */
export function batchDocumentOf(result: ScrapeResult, sourceURL: string): CrawlDocument {
  return { ...result, metadata: { ...result.metadata, sourceURL, statusCode: result.rawStatus } };
}

/**
 * The stable id of a batch's started or completed event: the batch id within its owning key (a digest of the key's
 * id, not the id itself, as the event id travels to the receiver). A native caller names its own batch id, so an id
 * of the batch alone would let another key's batch of the same id have these events taken as duplicates.
 */
export function batchEventId(target: BatchEventsTarget, kind: 'started' | 'completed'): string {
  const owner = createHash('sha256')
    .update(target.apiKeyId ?? '-')
    .digest('hex')
    .slice(0, 16);
  return `${owner}-${target.options.batchId}-${kind}`;
}

/**
 * Publishes a URL batch's webhook events in Firecrawl's names (ADR 0028) on the outcome stream, where the webhook
 * dispatcher delivers them as a crawl's: `batch_scrape.started` once its jobs are added, `batch_scrape.page` for each
 * finished job (instead of its `task.*` outcome), and `batch_scrape.completed` once BatchPagesStore has counted every
 * job. Ids are stable (`batchEventId`, the outcome's id), so JetStream stores a re-publish
 * (a redelivered or re-swept last page) once. Events not in `options.events` are skipped.
 */
export class BatchEventsPublisher {
  private readonly encoder = new TextEncoder();

  constructor(
    private readonly js: JetStreamClient,
    private readonly pages: BatchPagesStore,
    private readonly options: BatchEventsOptions,
  ) {}

  async started(target: BatchEventsTarget): Promise<void> {
    const id = target.options.batchId;
    await this.publish(target, batchEventId(target, 'started'), 'batch_scrape.started', { id, total: target.total });
  }

  /**
   * The page event of a finished job of the batch (`eventId` its outcome's), then its count; and the batch's
   * completed event when it was the last. Throws when a publish fails (the job stays unmarked: the sweep retries).
   */
  async page(
    target: BatchEventsTarget,
    jobId: string,
    eventId: string,
    task: TaskRecord,
    headers?: MsgHdrs,
  ): Promise<void> {
    const id = target.options.batchId;
    const body: BatchEventBody = { id };
    if (task.status === 'completed' && task.data) {
      const url = (task.params as { url?: string }).url ?? '';
      body.data = [batchDocumentOf(task.data as ScrapeResult, url)];
    } else {
      body.error = { code: task.error?.code ?? 'INTERNAL', message: task.error?.message ?? 'the page failed' };
    }
    await this.publish(target, eventId, 'batch_scrape.page', body, headers);
    // Counted per owning key: another key that names the same batch id counts in its own set.
    const count = await this.pages.finish(`${target.apiKeyId ?? '-'}/${id}`, jobId, target.total);
    if (count.complete) {
      await this.publish(target, batchEventId(target, 'completed'), 'batch_scrape.completed', {
        id,
        total: target.total,
      });
    }
  }

  private async publish(
    target: BatchEventsTarget,
    eventId: string,
    event: BatchScrapeEventName,
    batch: BatchEventBody,
    headers?: MsgHdrs,
  ): Promise<void> {
    const { options } = target;
    // `events` names the kinds wanted (Firecrawl's `started`, `page`, `completed`).
    if (options.events && !options.events.some((kind) => `batch_scrape.${kind}` === event)) return;
    const full: BatchWebhookEvent = {
      eventId,
      event,
      webhook: target.webhook,
      ...(target.apiKeyId ? { apiKeyId: target.apiKeyId } : {}),
      batch,
      ...(options.format === 'firecrawl' ? { form: 'firecrawl' as const } : {}),
      ...(options.headers ? { headers: options.headers } : {}),
      ...(options.metadata ? { metadata: options.metadata } : {}),
      occurredAt: Date.now(),
    };
    let data = this.encoder.encode(JSON.stringify(full));
    if (data.length > this.options.maxPayloadBytes() - 4096 && batch.data) {
      const slim: BatchEventBody = {
        id: batch.id,
        error: {
          code: 'PAYLOAD_TOO_LARGE',
          message: `the page's document (${data.length} bytes) is too large for a webhook; read it with the batch's status`,
        },
      };
      data = this.encoder.encode(JSON.stringify({ ...full, batch: slim }));
    }
    let delay = this.options.retryDelayMs;
    for (let attempt = 1; ; attempt++) {
      try {
        await this.js.publish(SUBJECTS.taskFinished, data, {
          msgID: eventId,
          timeout: this.options.timeoutMs,
          ...(headers ? { headers } : {}),
        });
        return;
      } catch (e) {
        if (attempt >= this.options.attempts) throw e;
        await new Promise((r) => setTimeout(r, delay));
        delay *= 2;
      }
    }
  }
}
