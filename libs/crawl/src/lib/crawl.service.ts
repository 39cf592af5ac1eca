import { randomBytes } from 'node:crypto';
import {
  CRAWL_ID_PATTERN,
  TrawlError,
  type ActiveCrawlsResult,
  type CrawlActiveRequest,
  type CrawlErrorsResult,
  type CrawlCancelRequest,
  type CrawlGetRequest,
  type CrawlStartReply,
  type CrawlStartRequest,
  type CrawlStatusReply,
} from '@trawl/contracts';
import type { CrawlDocumentsStore } from './crawl-documents.store.js';
import type { CrawlEventsPublisher } from './crawl-events.publisher.js';
import { NO_OWNER, type CrawlMeta, type CrawlStore } from './crawl.store.js';

export interface CrawlServiceOptions {
  /** Largest reply, bytes (the NATS payload limit, less room for the frame): a page of documents stops before it. */
  maxReplyBytes: () => number;
  /** Most documents in one page. */
  maxPageDocuments: number;
  /** Checks a webhook URL before the crawl starts (the SSRF guard of webhooks); throws URL_NOT_ALLOWED. */
  checkWebhook?: (url: string) => Promise<void>;
  /** Refuses a start URL the SSRF guard refuses (URL_NOT_ALLOWED), before any crawl is recorded. */
  checkUrl?: (url: string) => Promise<void>;
  /** Publishes `crawl.started` to the crawl's webhook. */
  events?: CrawlEventsPublisher;
  /** Most crawls one key may have running (CRAWL_MAX_ACTIVE_PER_KEY); 0 or absent: no cap. */
  maxActivePerKey?: number;
}

/**
 * The crawl operations task-service serves over NATS (crawl.start.v1, crawl.get.v1, crawl.cancel.v1): requests as
 * their rows' DTOs checked them (SUBJECT_TABLE, `@ServesSubject`), a crawl found only by the key that started it
 * (another key: TASK_NOT_FOUND, as tasks).
 */
export class CrawlService {
  constructor(
    private readonly store: CrawlStore,
    private readonly documents: CrawlDocumentsStore,
    private readonly options: CrawlServiceOptions,
  ) {}

  async start(p: CrawlStartRequest): Promise<CrawlStartReply> {
    const request = p.request;
    await this.options.checkUrl?.(request.url);
    if (request.webhook) await this.options.checkWebhook?.(request.webhook);
    const id = randomBytes(16).toString('hex');
    const owner = ownerOf(p.apiKeyId);
    const cap = this.options.maxActivePerKey ?? 0;
    if (!(await this.store.create(id, owner, request, cap))) {
      throw new TrawlError(
        'RATE_LIMITED',
        `this API key has ${cap} crawl(s) running and may have at most ${cap}; retry when one has ended (or cancel one)`,
      );
    }
    await this.options.events?.started({ id, owner, request }, owner === NO_OWNER ? undefined : owner);
    return { id };
  }

  async get(p: CrawlGetRequest): Promise<CrawlStatusReply> {
    const meta = await this.owned(p.id, p.apiKeyId);
    const cursor = p.cursor === undefined ? 1 : p.cursor;
    if (!Number.isSafeInteger(cursor) || cursor < 1) {
      throw new TrawlError('VALIDATION_FAILED', 'cursor must be a positive integer', { field: 'cursor' });
    }
    const page = await this.documents.page(
      meta.id,
      cursor,
      Math.max(64 * 1024, this.options.maxReplyBytes()),
      this.options.maxPageDocuments,
    );
    const more = page.more || meta.status === 'scraping';
    return { ...this.view(meta), data: page.documents, cursor: more ? page.next : null };
  }

  /** Stops a scraping crawl (no new page starts; pages in flight are abandoned, ADR 0043); an ended crawl is answered as it is. */
  async cancel(p: CrawlCancelRequest): Promise<CrawlStatusReply> {
    const meta = await this.owned(p.id, p.apiKeyId);
    if (meta.status === 'scraping') await this.store.end(meta.id, 'cancelled');
    const now = (await this.store.meta(meta.id)) ?? meta;
    return { ...this.view(now), data: [], cursor: null };
  }

  /** The crawl's pages that ended in an error and the URLs robots.txt kept it from (Firecrawl's crawl errors). */
  async errors(p: CrawlCancelRequest): Promise<CrawlErrorsResult> {
    const meta = await this.owned(p.id, p.apiKeyId);
    const { errors, robotsBlocked } = await this.store.errors(meta.id);
    return {
      errors: errors.map((e) => ({
        url: e.url,
        code: e.code,
        error: e.error,
        timestamp: new Date(e.at).toISOString(),
      })),
      robotsBlocked,
    };
  }

  /** The key's running crawls, oldest first, each with its request (its webhook aside: it may carry a secret). */
  async active(p: CrawlActiveRequest): Promise<ActiveCrawlsResult> {
    const metas = await Promise.all((await this.store.activeOf(ownerOf(p.apiKeyId))).map((id) => this.store.meta(id)));
    const running = metas.filter((m): m is CrawlMeta => m !== undefined && m.status === 'scraping');
    running.sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));
    return {
      crawls: running.map((m) => {
        const { url, webhook: _webhook, webhookOptions: _webhookOptions, ...options } = m.request;
        void _webhook;
        void _webhookOptions;
        return { id: m.id, url, createdAt: new Date(m.createdAt).toISOString(), options: { ...options } };
      }),
    };
  }

  private view(meta: CrawlMeta): Omit<CrawlStatusReply, 'data' | 'cursor'> {
    return {
      id: meta.id,
      status: meta.status,
      total: meta.total,
      completed: meta.completed,
      documents: meta.documents,
      ...(meta.error ? { error: meta.error } : {}),
    };
  }

  private async owned(id: unknown, apiKeyId: unknown): Promise<CrawlMeta> {
    if (typeof id !== 'string' || !CRAWL_ID_PATTERN.test(id)) {
      throw new TrawlError('VALIDATION_FAILED', 'id must be a crawl id (32 hex digits)', { field: 'id' });
    }
    const meta = await this.store.meta(id);
    if (!meta || meta.owner !== ownerOf(apiKeyId)) throw new TrawlError('TASK_NOT_FOUND', `crawl ${id} not found`);
    return meta;
  }
}

function ownerOf(apiKeyId: unknown): string {
  return typeof apiKeyId === 'string' && apiKeyId !== '' ? apiKeyId : NO_OWNER;
}
