import { createHash } from 'node:crypto';
import type { JetStreamClient } from '@nats-io/jetstream';
import {
  SUBJECTS,
  type CrawlEventBody,
  type CrawlEventName,
  type CrawlWebhookEvent,
  type CrawlWebhookOptionsDto,
} from '@trawl/contracts';
import type { CrawlMeta } from './crawl.store.js';

export interface CrawlEventsOptions {
  /** Publish attempts before the caller is told (a worker then leaves the crawl for another to finish). */
  attempts: number;
  retryDelayMs: number;
  timeoutMs: number;
  /** The NATS payload limit: a `crawl.page` event larger than it goes without its document. */
  maxPayloadBytes: () => number;
}

/**
 * Publishes a crawl's webhook events (ADR 0026) on the outcome stream (`task.finished.v1`), where webhook-dispatcher
 * delivers them signed and retried like task outcomes. Each event id is stable (`<crawl>-started`, `<crawl>-page-<key
 * hash>`, `<crawl>-end`), so a re-publish after a crash is stored once.
 */
export class CrawlEventsPublisher {
  private readonly encoder = new TextEncoder();

  constructor(
    private readonly js: JetStreamClient,
    private readonly options: CrawlEventsOptions,
  ) {}

  async started(meta: Pick<CrawlMeta, 'id' | 'owner' | 'request'>, owner: string | undefined): Promise<void> {
    await this.publish(meta.request, owner, `${meta.id}-started`, 'crawl.started', {
      id: meta.id,
      status: 'scraping',
    });
  }

  async page(meta: CrawlPageMeta, documentKey: string, body: CrawlEventBody): Promise<void> {
    const hash = createHash('sha256').update(documentKey).digest('hex').slice(0, 32);
    await this.publish(meta, meta.owner, `${meta.id}-page-${hash}`, 'crawl.page', body);
  }

  async ended(meta: CrawlMeta, owner: string | undefined): Promise<void> {
    await this.publish(
      meta.request,
      owner,
      `${meta.id}-end`,
      meta.status === 'completed' ? 'crawl.completed' : 'crawl.failed',
      {
        id: meta.id,
        status: meta.status,
        total: meta.total,
        completed: meta.completed,
        documents: meta.documents,
        ...(meta.error ? { error: meta.error } : {}),
      },
    );
  }

  private async publish(
    target: CrawlWebhookTarget,
    owner: string | undefined,
    eventId: string,
    event: CrawlEventName,
    crawl: CrawlEventBody,
  ): Promise<void> {
    const { webhook, webhookOptions: options } = target;
    if (!webhook) return;
    // `webhookOptions.events` names the events wanted (Firecrawl's `started`, `page`, `completed`, `failed`).
    if (options?.events && !options.events.some((kind) => `crawl.${kind}` === event)) return;
    const full: CrawlWebhookEvent = {
      eventId,
      event,
      webhook,
      ...(owner ? { apiKeyId: owner } : {}),
      crawl,
      ...(options?.format === 'firecrawl' ? { form: 'firecrawl' as const } : {}),
      ...(options?.headers ? { headers: options.headers } : {}),
      ...(options?.metadata ? { metadata: options.metadata } : {}),
      occurredAt: Date.now(),
    };
    let data = this.encoder.encode(JSON.stringify(full));
    if (data.length > this.options.maxPayloadBytes() - 4096 && crawl.data) {
      const { data: _document, ...rest } = crawl;
      void _document;
      data = this.encoder.encode(JSON.stringify({ ...full, crawl: rest }));
    }
    let delay = this.options.retryDelayMs;
    for (let attempt = 1; ; attempt++) {
      try {
        await this.js.publish(SUBJECTS.taskFinished, data, { msgID: eventId, timeout: this.options.timeoutMs });
        return;
      } catch (e) {
        if (attempt >= this.options.attempts) throw e;
        await new Promise((r) => setTimeout(r, delay));
        delay *= 2;
      }
    }
  }
}

/** Where a crawl's events go: its webhook and how it is called. */
export interface CrawlWebhookTarget {
  webhook?: string | undefined;
  webhookOptions?: CrawlWebhookOptionsDto | undefined;
}

/** What a `crawl.page` event needs of its crawl. */
export interface CrawlPageMeta extends CrawlWebhookTarget {
  id: string;
  owner: string | undefined;
}
