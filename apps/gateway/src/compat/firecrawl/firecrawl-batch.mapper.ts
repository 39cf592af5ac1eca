import {
  isHttpUrl,
  isWireError,
  PAGE_SCRAPE_OPTION_FIELDS,
  type ScrapeResult,
  type TaskRecord,
} from '@trawl/contracts';
import { BATCH_OPTIONS, BATCH_RETENTION_MS, PAGE_STATES, type BatchState } from './firecrawl.constants.js';
import { applyOptions, withoutCacheFields, type Mapping } from './firecrawl-options.mapper.js';
import { crawlWebhookOf } from './firecrawl-crawl.mapper.js';
import { fromNativeScrape, toNativeScrape, type FirecrawlDocument } from './firecrawl-scrape.mapper.js';
import { TrawlError } from '@trawl/contracts';

/**
 * The native fields of a scrape a URL batch carries (ADR 0039): `timeout` per task, and in its `scrapeOptions` every
 * page option of POST /scrape (the one list, PAGE_SCRAPE_OPTION_FIELDS). The two cache fields are the gateway's
 * synchronous path's, which a batch's pages never take (CACHE_FIELDS_OFF_THE_SYNC_PATH); nothing else is left out.
 */
const BATCH_TASK_FIELDS = new Set(['timeout']);
const BATCH_SCRAPE_OPTIONS: ReadonlySet<string> = new Set(PAGE_SCRAPE_OPTION_FIELDS);
const HANDLED = new Set(['urls', 'webhook', 'scrapeOptions']);

export interface BatchMapping extends Mapping {
  urls: string[];
  invalidURLs: string[];
  /** The Firecrawl formats to answer (those the batch's tasks were asked for). */
  formats: string[];
  webhook?: string;
  /** How the webhook is called (the native batch's `webhookOptions` but its `batchId`, made by the caller). */
  webhookOptions?: Record<string, unknown>;
}

/**
 * A Firecrawl batch body onto a native URL batch (type `scrape`): its URLs (invalid ones set aside when
 * `ignoreInvalidURLs`, Firecrawl's v2 default), the per-URL timeout, every page option of `/scrape` (formats,
 * headers, waitFor, onlyMainContent, include/excludeTags, blockAds, actions, location, mobile; ADR 0039) in the
 * batch's `scrapeOptions`, and the webhook as a crawl's (Firecrawl's batch_scrape.* events in its object form, with
 * its headers, metadata and events, ADR 0028). `maxAge` is met by a fresh scrape; `storeInCache: true` is warned.
 */
export function toNativeBatch(body: Record<string, unknown>, ignoreInvalidDefault: boolean): BatchMapping {
  const urls = body.urls;
  if (!Array.isArray(urls) || urls.length === 0) {
    throw new TrawlError('VALIDATION_FAILED', 'urls must be a non-empty list of URLs', { field: 'urls' });
  }
  // Firecrawl's batch takes the scrape options at the top level; a client that nests them in `scrapeOptions` (as a
  // crawl's) is read the same way, the top level winning.
  const nested = body.scrapeOptions;
  if (nested !== undefined && (typeof nested !== 'object' || nested === null || Array.isArray(nested))) {
    throw new TrawlError('VALIDATION_FAILED', 'scrapeOptions must be an object', { field: 'scrapeOptions' });
  }
  const given = withoutCacheFields({
    ...(nested as Record<string, unknown> | undefined),
    ...Object.fromEntries(Object.entries(body).filter(([k]) => !HANDLED.has(k) && !Object.hasOwn(BATCH_OPTIONS, k))),
  });
  const scrape = toNativeScrape(given.options);
  const batchOptions: Mapping = { native: {}, warnings: [] };
  applyOptions(
    [BATCH_OPTIONS],
    Object.fromEntries(Object.entries(body).filter(([k]) => Object.hasOwn(BATCH_OPTIONS, k))),
    batchOptions,
    new Set(),
  );
  const warnings = [...given.warnings, ...scrape.warnings, ...batchOptions.warnings];
  const scrapeOptions: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(scrape.native)) {
    if (BATCH_SCRAPE_OPTIONS.has(field)) scrapeOptions[field] = value;
    else if (!BATCH_TASK_FIELDS.has(field)) warnings.push(`${field} cannot be set for a batch in Trawl; ignored`);
  }
  const ignoreInvalid = (batchOptions.native.ignoreInvalidURLs as boolean | undefined) ?? ignoreInvalidDefault;
  const valid = ignoreInvalid ? urls.filter((u) => isHttpUrl(u)) : (urls as string[]);
  const invalidURLs = ignoreInvalid ? urls.filter((u) => !isHttpUrl(u)).map(String) : [];
  if (valid.length === 0) {
    throw new TrawlError('VALIDATION_FAILED', 'urls holds no valid http(s) URL', { field: 'urls' });
  }
  const mapping: BatchMapping = {
    native: {
      type: 'scrape',
      ...(scrape.native.timeout !== undefined ? { timeout: scrape.native.timeout } : {}),
      scrapeOptions,
    },
    warnings,
    urls: valid,
    invalidURLs,
    formats: scrape.answered.map((a) => a.name),
  };
  const webhook = crawlWebhookOf(body.webhook);
  if (webhook) {
    mapping.webhook = webhook.url;
    mapping.webhookOptions = webhook.options;
  }
  return mapping;
}

/** One page of a batch as its task record says. */
export interface BatchPage {
  state: 'scraping' | 'completed' | 'failed';
  document?: FirecrawlDocument;
  error?: string;
}

export function pageOf(record: TaskRecord | null, formats: string[]): BatchPage {
  if (!record) return { state: 'failed', error: 'the task is gone' };
  const state = PAGE_STATES[record.status];
  if (state === 'completed' && record.data) {
    const mapping = toNativeScrape({ formats });
    return { state, document: fromNativeScrape(record.data as ScrapeResult, { ...mapping, warnings: [] }) };
  }
  if (state === 'failed') return { state, error: isWireError(record.error) ? record.error.message : 'failed' };
  return { state };
}

/**
 * The batch's Firecrawl state: `cancelled` or `failed` once ended; `completed` when every page is final (failed
 * pages included, as Firecrawl does: they are left out of `data`); `failed` past the deadline; else `scraping`.
 */
export function batchStateOf(
  pages: readonly BatchPage[],
  ended: 'cancelled' | 'failed' | undefined,
  pastDeadline: boolean,
): BatchState {
  if (ended) return ended;
  if (pages.every((p) => p.state !== 'scraping')) return 'completed';
  return pastDeadline ? 'failed' : 'scraping';
}

/** Firecrawl's `expiresAt` of a batch started at `createdAt`. */
export function expiresAtOf(createdAt: number): string {
  return new Date(createdAt + BATCH_RETENTION_MS).toISOString();
}

/** Firecrawl's batch status answer; `next` (the same path on the same server, `?skip=`) only while pages remain. */
export function batchStatusAnswer(
  status: {
    status: BatchState;
    completed: number;
    total: number;
    creditsUsed: number;
    expiresAt: string;
    data: FirecrawlDocument[];
    nextSkip?: number;
    warning?: string;
  },
  selfUrl: string,
): Record<string, unknown> {
  const { nextSkip, ...rest } = status;
  const next = new URL(selfUrl);
  if (nextSkip !== undefined) next.search = `?skip=${nextSkip}`;
  return { success: true, ...rest, ...(nextSkip !== undefined ? { next: next.toString() } : {}) };
}
