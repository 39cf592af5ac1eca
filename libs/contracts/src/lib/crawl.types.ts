import type { CrawlRequestDto } from './dto/crawl-request.dto.js';
import type { MapRequestDto } from './dto/map-request.dto.js';
import type { CrawlDocument } from './crawl-document.schema.js';
import type { CrawlStatusResult } from './crawl-response.schema.js';
import type { TaskFinishedEvent, TraceCarrier } from './task.types.js';

/** A crawl's state: `scraping` until its frontier is empty, then `completed`; `failed` (its fleet stayed away, its
 * start page failed) or `cancelled` (DELETE) end it too. */
export const CRAWL_STATUSES = ['scraping', 'completed', 'failed', 'cancelled'] as const;
export type CrawlStatus = (typeof CRAWL_STATUSES)[number];

/** A crawl's id: 32 lower-case hex digits (random). */
export const CRAWL_ID_PATTERN = /^[0-9a-f]{32}$/;

/** NATS payload of `crawl.start.v1`. */
export interface CrawlStartRequest {
  request: CrawlRequestDto;
  /** The key that starts the crawl: its owner (another key gets 404) and the tenant of its scrapes. */
  apiKeyId?: string;
  trace?: TraceCarrier;
}

/** NATS payload of `crawl.get.v1`. */
export interface CrawlGetRequest {
  id: string;
  apiKeyId?: string;
  /** Where the page of documents starts (the `next` of the previous page); absent: the first document. */
  cursor?: number;
}

/** Reply of `crawl.get.v1`: the crawl and one page of its documents, `cursor` where GET /crawl/{id} has `next`. */
export type CrawlStatusReply = Omit<CrawlStatusResult, 'next'> & {
  /** The cursor of the next page of documents; null when none remain and the crawl has ended. */
  cursor: number | null;
};

/** NATS payload of `crawl.cancel.v1`. */
export interface CrawlCancelRequest {
  id: string;
  apiKeyId?: string;
}

/** NATS payload of `crawl.active.v1`. */
export interface CrawlActiveRequest {
  apiKeyId?: string;
}

/** NATS payload of `map.site.v1`. */
export interface MapSiteRequest {
  request: MapRequestDto;
  apiKeyId?: string;
}

/** A crawl's webhook events (Firecrawl's names): started, one per document, and its end. */
export const CRAWL_EVENTS = ['crawl.started', 'crawl.page', 'crawl.completed', 'crawl.failed'] as const;
export type CrawlEventName = (typeof CRAWL_EVENTS)[number];

/** The body of a crawl webhook besides `event`: the crawl's state, and on `crawl.page` its document. */
export interface CrawlEventBody {
  id: string;
  status: CrawlStatus;
  total?: number;
  completed?: number;
  documents?: number;
  error?: { code: string; message: string };
  /** `crawl.page`: the page's document (one). */
  data?: CrawlDocument[];
}

/**
 * A crawl event on its way to the crawl's webhook: published by task-service on `task.finished.v1` (the outcome
 * stream, ADR 0026) and delivered, signed and retried, by webhook-dispatcher like a task's outcome.
 */
export interface CrawlWebhookEvent {
  /** Stable id (the webhook's `webhook-id`): the same on every re-publish, so JetStream stores it once. */
  eventId: string;
  event: CrawlEventName;
  webhook: string;
  apiKeyId?: string;
  crawl: CrawlEventBody;
  /** The body's form: Trawl's when absent, Firecrawl's `{ success, type, id, data, metadata, error? }` (ADR 0028). */
  form?: 'firecrawl';
  /** Headers the crawl asked to be sent with each delivery (the signature headers win). */
  headers?: Record<string, string>;
  /** The crawl's webhook metadata, echoed in the Firecrawl form. */
  metadata?: Record<string, unknown>;
  trace?: TraceCarrier;
  occurredAt: number;
}

/**
 * A URL batch's webhook events (Firecrawl's names, ADR 0028): started once its jobs are added, one per URL as each
 * finishes, completed once every URL has.
 */
export const BATCH_SCRAPE_EVENTS = ['batch_scrape.started', 'batch_scrape.page', 'batch_scrape.completed'] as const;
export type BatchScrapeEventName = (typeof BATCH_SCRAPE_EVENTS)[number];

/** The body of a batch webhook besides `event`: the batch's id, and on `batch_scrape.page` its document or error. */
export interface BatchEventBody {
  id: string;
  total?: number;
  /** `batch_scrape.page`: the page's document (one), mapped as a crawl's. */
  data?: CrawlDocument[];
  /** `batch_scrape.page` of a URL that failed: why. */
  error?: { code: string; message: string };
}

/**
 * A URL batch event (a batch submitted with `webhookOptions`) on its way to the batch's webhook: published by
 * task-service on `task.finished.v1` instead of its tasks' outcomes, delivered by webhook-dispatcher as a crawl's.
 */
export interface BatchWebhookEvent {
  /** Stable id: `<batch>-started`, `<job>-<finishedOn>` (the task outcome's), `<batch>-completed`. */
  eventId: string;
  event: BatchScrapeEventName;
  webhook: string;
  apiKeyId?: string;
  batch: BatchEventBody;
  /** The body's form: Trawl's when absent, Firecrawl's `{ success, type, id, data, metadata, error? }`. */
  form?: 'firecrawl';
  headers?: Record<string, string>;
  metadata?: Record<string, unknown>;
  trace?: TraceCarrier;
  occurredAt: number;
}

/** What the outcome stream carries to the dispatcher: a task's final outcome, a crawl's or a URL batch's event. */
export type OutcomeEvent = TaskFinishedEvent | CrawlWebhookEvent | BatchWebhookEvent;
