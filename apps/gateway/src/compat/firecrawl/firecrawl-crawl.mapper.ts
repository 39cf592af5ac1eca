import {
  CRAWL_LIMITS,
  LIMITS,
  TrawlError,
  type CrawlDocument,
  type CrawlPlanOptions,
  type CrawlStatusReply,
  type MapLink,
  type ScrapeResult,
} from '@trawl/contracts';
import {
  CRAWL_FORMATS,
  CRAWL_OPTIONS,
  CRAWL_SCRAPE_FIELDS,
  CRAWL_STATES,
  MAP_OPTIONS,
  type BatchState,
} from './firecrawl.constants.js';
import { applyOptions, clampNative, withoutCacheFields, type Mapping } from './firecrawl-options.mapper.js';
import { fromNativeScrape, toNativeScrape, type FirecrawlDocument } from './firecrawl-scrape.mapper.js';

const CRAWL_HANDLED = new Set(['url', 'scrapeOptions', 'webhook']);
const MAP_HANDLED = new Set(['url']);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The format a native `formats` entry names: a string (`screenshot@fullPage` is a screenshot) or an object's type. */
function nativeFormatName(entry: unknown): string {
  if (typeof entry === 'string') return entry.startsWith('screenshot') ? 'screenshot' : entry;
  return isRecord(entry) && typeof entry.type === 'string' ? entry.type : '';
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Firecrawl's default scope (`crawlEntireDomain` / `allowBackwardLinks` not true): only paths under the start URL's
 * path. As native patterns (matched against path + query, any of them): each include pattern must also start with the
 * prefix; without include patterns, the prefix alone. A start URL at the site's root asks for nothing.
 */
export function pathScopedIncludes(startUrl: string, includePaths: readonly string[]): string[] {
  let path: string;
  try {
    path = new URL(startUrl).pathname;
  } catch {
    return [...includePaths];
  }
  if (path === '/' || path === '') return [...includePaths];
  const prefix = `^${escapeRegex(path)}`;
  if (includePaths.length === 0) return [prefix];
  return includePaths.map((p) => `^(?=${escapeRegex(path)})[\\s\\S]*?(?:${p})`);
}

/**
 * Firecrawl's crawl `webhook` (a URL, or `{ url, headers, metadata, events }`) onto the native crawl's `webhook` and
 * `webhookOptions`: delivered in Firecrawl's object form and event names, with its headers and metadata, only the
 * events asked for; signed and retried by the dispatcher as every webhook (ADR 0028).
 */
export function crawlWebhookOf(webhook: unknown): { url: string; options: Record<string, unknown> } | undefined {
  if (webhook === undefined || webhook === null) return undefined;
  if (typeof webhook === 'string') return { url: webhook, options: { format: 'firecrawl' } };
  if (isRecord(webhook) && typeof webhook.url === 'string') {
    const { url, headers, metadata, events } = webhook;
    return {
      url,
      options: {
        format: 'firecrawl',
        ...(headers !== undefined ? { headers } : {}),
        ...(metadata !== undefined ? { metadata } : {}),
        ...(events !== undefined ? { events } : {}),
      },
    };
  }
  throw new TrawlError('VALIDATION_FAILED', 'webhook must be a URL or { url, headers, metadata, events }', {
    field: 'webhook',
  });
}

export interface CrawlMapping extends Mapping {
  webhook?: string;
}

/**
 * A Firecrawl crawl body (v2 or v1) onto the native crawl request (CrawlRequestDto): the options through CRAWL_OPTIONS,
 * the path scope Firecrawl applies by default, `scrapeOptions` onto what a crawl's pages carry (POST /scrape's page
 * options, a screenshot included, ADR 0039; the LLM formats named in the warnings), numbers held to Trawl's bounds
 * (and said so).
 */
export function toNativeCrawl(body: Record<string, unknown>): CrawlMapping {
  const mapping: CrawlMapping = { native: {}, warnings: [] };
  applyOptions([CRAWL_OPTIONS], body, mapping, CRAWL_HANDLED);
  mapping.native.url = body.url;
  const entireDomain = mapping.native.crawlEntireDomain;
  delete mapping.native.crawlEntireDomain;
  if (entireDomain !== true && typeof body.url === 'string') {
    const includes = Array.isArray(mapping.native.includePaths) ? (mapping.native.includePaths as string[]) : [];
    const scoped = pathScopedIncludes(body.url, includes);
    if (scoped.length > 0) mapping.native.includePaths = scoped;
  }
  clampNative(mapping, 'limit', 1, CRAWL_LIMITS.maxLimit);
  clampNative(mapping, 'maxDepth', 0, CRAWL_LIMITS.maxMaxDepth);
  clampNative(mapping, 'maxConcurrency', 1, CRAWL_LIMITS.maxMaxConcurrency);
  clampNative(mapping, 'delay', 0, CRAWL_LIMITS.maxDelayMs, 'delay (ms)');

  const options = body.scrapeOptions ?? {};
  if (!isRecord(options)) {
    throw new TrawlError('VALIDATION_FAILED', 'scrapeOptions must be an object', { field: 'scrapeOptions' });
  }
  const given = withoutCacheFields(options, 'scrapeOptions.');
  const scrape = toNativeScrape(given.options, 'scrapeOptions.');
  mapping.warnings.push(...given.warnings, ...scrape.warnings);
  for (const { name, rule } of scrape.answered) {
    if (!CRAWL_FORMATS.has(rule.native))
      mapping.warnings.push(`format ${name} cannot be set for a crawl's pages in Trawl; ignored`);
  }
  // The native entries of the formats a crawl's pages carry (a screenshot as given: its options kept).
  const formats = (scrape.native.formats as unknown[]).filter((f) => CRAWL_FORMATS.has(nativeFormatName(f)));
  const nativeScrape: Record<string, unknown> = { formats: formats.length > 0 ? formats : ['markdown'] };
  for (const [field, value] of Object.entries(scrape.native)) {
    if (field === 'formats') continue;
    if (CRAWL_SCRAPE_FIELDS.has(field)) nativeScrape[field] = value;
    else mapping.warnings.push(`scrapeOptions.${field} cannot be set for a crawl's pages in Trawl; ignored`);
  }
  mapping.native.scrapeOptions = nativeScrape;

  const webhook = crawlWebhookOf(body.webhook);
  if (webhook) {
    mapping.webhook = webhook.url;
    mapping.native.webhook = webhook.url;
    mapping.native.webhookOptions = webhook.options;
  }
  return mapping;
}

/**
 * A crawl plan's options (native names and units, ADR 0042) in Firecrawl's crawl names: `maxDepth` as
 * `maxDiscoveryDepth`, `delay` in seconds. An option the body already gives under another of its names (v1's
 * `maxDepth`, `ignoreSitemap`) is left out, so that the caller's stands.
 */
export function firecrawlPlanOptionsOf(
  options: CrawlPlanOptions,
  body: Record<string, unknown> = {},
): Record<string, unknown> {
  const given = (name: string) => body[name] !== undefined && body[name] !== null;
  const out: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(options)) {
    if (field === 'maxDepth') {
      if (!given('maxDepth')) out.maxDiscoveryDepth = value;
    } else if (field === 'delay') {
      out.delay = (value as number) / 1000;
    } else if (field === 'sitemap') {
      if (!given('ignoreSitemap')) out.sitemap = value;
    } else {
      out[field] = value;
    }
  }
  return out;
}

/** Firecrawl's `finalCrawlerOptions`: a crawl body's options as they run, its URL, page options and webhook aside. */
export function crawlerOptionsOf(body: Record<string, unknown>): Record<string, unknown> {
  const { url: _url, scrapeOptions: _scrape, webhook: _webhook, prompt: _prompt, ...options } = body;
  void [_url, _scrape, _webhook, _prompt];
  return options;
}

/** A Firecrawl map body (v2 or v1) onto the native map request (MapRequestDto). */
export function toNativeMap(body: Record<string, unknown>): Mapping {
  const mapping: Mapping = { native: {}, warnings: [] };
  applyOptions([MAP_OPTIONS], body, mapping, MAP_HANDLED);
  mapping.native.url = body.url;
  clampNative(mapping, 'limit', 1, CRAWL_LIMITS.maxMapLimit);
  clampNative(mapping, 'timeout', LIMITS.minTimeoutMs, LIMITS.maxTimeoutMs);
  return mapping;
}

/** Map links as Firecrawl answers them: v2 `{ url, title? }` objects, v1 strings. */
export function mapLinksOf(
  links: readonly MapLink[],
  version: 'v1' | 'v2',
): (string | { url: string; title?: string })[] {
  if (version === 'v1') return links.map((l) => l.url);
  return links.map((l) => ({ url: l.url, ...(l.title ? { title: l.title } : {}) }));
}

/** Every format a crawl document may carry, answered as Firecrawl's (html decoded); absent fields are skipped. */
const DOCUMENT_FORMATS = toNativeScrape({ formats: [...CRAWL_FORMATS] });

/** A crawl's document as a Firecrawl document; `sourceURL` is the URL the crawl asked for. */
export function fromCrawlDocument(doc: CrawlDocument): FirecrawlDocument {
  const out = fromNativeScrape(doc as unknown as ScrapeResult, { ...DOCUMENT_FORMATS, warnings: [] });
  out.metadata.sourceURL = doc.metadata.sourceURL;
  out.metadata.statusCode = doc.metadata.statusCode;
  return out;
}

/** Where the next page of a crawl's status starts: the native stream cursor and the documents before it. */
export interface CrawlPageRef {
  cursor?: number;
  skip: number;
}

export interface FirecrawlCrawlStatus {
  status: BatchState;
  completed: number;
  total: number;
  creditsUsed: number;
  expiresAt?: string;
  data: FirecrawlDocument[];
  next?: CrawlPageRef;
  error?: string;
}

/**
 * Firecrawl's crawl status from the native one. `next` only while more documents remain after this page (Firecrawl's
 * rule; the SDKs follow it in a loop): a page with documents, and either the crawl ended with more stored after it,
 * or it is still running and has stored more than the caller has been given.
 */
export function crawlStatusOf(reply: CrawlStatusReply, at: CrawlPageRef): FirecrawlCrawlStatus {
  const given = at.skip + reply.data.length;
  const more =
    reply.data.length > 0 && reply.cursor !== null && (reply.status === 'scraping' ? given < reply.documents : true);
  return {
    status: CRAWL_STATES[reply.status],
    completed: reply.completed,
    total: reply.total,
    creditsUsed: reply.documents,
    data: reply.data.map(fromCrawlDocument),
    ...(more && reply.cursor !== null ? { next: { cursor: reply.cursor, skip: given } } : {}),
    ...(reply.error ? { error: reply.error.message } : {}),
  };
}

/** The `next` URL of a crawl status page: the same path on the same server, with the native cursor. */
export function crawlNextUrl(selfUrl: string, next: CrawlPageRef): string {
  const url = new URL(selfUrl);
  url.search = `?cursor=${next.cursor}&skip=${next.skip}`;
  return url.toString();
}

/** `cursor` and `skip` of a crawl status request (both from a previous `next`). */
export function crawlPageRefOf(query: unknown): CrawlPageRef & { skipWithoutCursor: boolean } {
  const q = isRecord(query) ? query : {};
  const num = (name: string, min: number): number | undefined => {
    const raw = q[name];
    if (raw === undefined) return undefined;
    const n = Number(raw);
    if (!Number.isSafeInteger(n) || n < min) {
      throw new TrawlError('VALIDATION_FAILED', `${name} must be a whole number of at least ${min}`, { field: name });
    }
    return n;
  };
  const cursor = num('cursor', 1);
  const skip = num('skip', 0) ?? 0;
  if (cursor === undefined) return { skip: 0, skipWithoutCursor: skip > 0 };
  return { cursor, skip, skipWithoutCursor: false };
}

/** Firecrawl's crawl status answer; `next` (this path on this server, the native cursor) only while pages remain. */
export function crawlStatusAnswer(
  status: FirecrawlCrawlStatus & { warning?: string },
  selfUrl: string,
): Record<string, unknown> {
  const { next, ...rest } = status;
  return { success: true, ...rest, ...(next ? { next: crawlNextUrl(selfUrl, next) } : {}) };
}
