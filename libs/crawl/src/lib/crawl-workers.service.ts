import { randomUUID } from 'node:crypto';
import {
  decodeScrapeHtml,
  PAGE_SCRAPE_OPTION_FIELDS,
  SCRAPE_FORMATS,
  type CrawlFormat,
  type CrawlScrapeOptionsDto,
  TrawlError,
  type CrawlDocument,
  type CrawlRequestDto,
  type ScrapePageRequestDto,
  type ScrapeResult,
} from '@trawl/contracts';
import { FleetUnavailableError } from '@trawl/messaging';
import type { SafeFetchResponse } from '@trawl/safe-fetch';
import type { CrawlDocumentsStore } from './crawl-documents.store.js';
import type { CrawlEventsPublisher } from './crawl-events.publisher.js';
import { crawlScope, isUrlInScope, type CrawlScope } from './crawl-scope.policy.js';
import { NO_OWNER, type CrawlStore, type Lease } from './crawl.store.js';
import { normalizeCrawlUrl } from './crawl-url.policy.js';
import { sleep, type HostBudgetLimiter } from './host-budget.limiter.js';
import { extractPageLinks } from './page-links.extractor.js';
import { robotsRules, robotsUrlOf, type RobotsRecord, type RobotsRules } from './robots-rules.policy.js';
import { DEFAULT_SITEMAP_BOUNDS, readRobots, readSitemaps, type SitemapBounds } from './site-discovery.reader.js';

/**
 * Scrapes one page through the extractors (scrape.page.v1); throws FleetUnavailableError when none serves. `abandon`
 * aborts once the crawl no longer runs (cancelled, failed): the extractor is told to stop the page (ADR 0043).
 */
export type PageScraper = (
  request: ScrapePageRequestDto,
  timeoutMs: number,
  abandon?: AbortSignal,
) => Promise<ScrapeResult>;
/** Fetches robots.txt or a sitemap through the SSRF guard. */
export type GuardedFetch = (url: string) => Promise<SafeFetchResponse>;

export interface CrawlWorkersOptions {
  /** Pages worked on at once by this replica (over all crawls). */
  concurrency: number;
  /** A lease's length, ms: an item whose worker died goes back to the frontier after it. Renewed while worked on. */
  leaseMs: number;
  /** Leases of one URL before it ends in an error (its worker keeps dying, or it keeps failing retryably). */
  maxTries: number;
  /** Longest a crawl waits for its extractor fleet before it fails with SERVICE_UNAVAILABLE, ms. */
  fleetMaxWaitMs: number;
  /** While the fleet is away, how long a worker waits before trying again, ms. */
  fleetProbeMs: number;
  /** Pause of a worker with nothing to do, ms. */
  idleMs: number;
  /** robots.txt product token the crawl obeys. */
  robotsAgent: string;
  /** Largest Crawl-delay honoured, ms (a robots.txt asking for a day is read as this). */
  maxCrawlDelayMs: number;
  sitemapBounds?: SitemapBounds;
  onError?: (message: string, error: unknown) => void;
  /** A crawl ended (completed, failed, cancelled) as seen by this replica. */
  onEnded?: (id: string) => void;
  /** Publishes the crawls' webhook events (crawl.page, crawl.completed / crawl.failed); none without it. */
  events?: CrawlEventsPublisher;
}

interface CrawlContext {
  request: CrawlRequestDto;
  owner: string;
  scope: CrawlScope;
}

/** How many crawls' requests (and robots rules) a replica keeps at hand. */
const CONTEXT_CACHE = 256;
const RULES_CACHE = 1024;

/**
 * The crawl workers of one task-service replica (ADR 0026). `concurrency` loops take leased items from the active
 * crawls' frontiers in Redis, so every replica works on every crawl; each page takes a slot of its host's budget,
 * is scraped through scrape.page.v1 (the extractors' queue group, the browser fleet), its links are admitted to the
 * frontier and its document is claimed and stored once. A worker holds one page at a time: memory does not grow with
 * a crawl's size.
 */
export class CrawlWorkers {
  private readonly contexts = new Map<string, CrawlContext>();
  private readonly rules = new Map<string, RobotsRules>();
  private readonly stop = new AbortController();
  private loops: Promise<void>[] = [];

  constructor(
    private readonly store: CrawlStore,
    private readonly budget: HostBudgetLimiter,
    private readonly documents: CrawlDocumentsStore,
    private readonly scrape: PageScraper,
    private readonly fetch: GuardedFetch,
    private readonly options: CrawlWorkersOptions,
  ) {}

  start(): void {
    for (let i = 0; i < this.options.concurrency; i++) this.loops.push(this.loop());
  }

  /** Stops taking items and waits for the pages in flight. */
  async close(): Promise<void> {
    this.stop.abort();
    await Promise.all(this.loops);
  }

  private async loop(): Promise<void> {
    while (!this.stop.signal.aborted) {
      let worked = false;
      try {
        worked = await this.step();
      } catch (e) {
        this.options.onError?.('crawl worker', e);
      }
      if (!worked) await sleep(this.options.idleMs * (0.5 + Math.random()), this.stop.signal);
    }
  }

  /**
   * Takes one item of some active crawl and works on it; false when there was nothing to do. Keys take turns: a key is
   * picked at random among those with active crawls, then one of its crawls, so a key's share of the workers does not
   * grow with the number of crawls it starts (each key's count is capped too, CrawlServiceOptions.maxActivePerKey).
   */
  private async step(): Promise<boolean> {
    for (const id of turnOrder(await this.store.activeByOwner())) {
      if (this.stop.signal.aborted) return false;
      const lease = await this.store.lease(id, this.options.leaseMs);
      if (lease === 'ended') {
        await this.finish(id);
        continue;
      }
      if (lease === 'idle' || lease === 'busy') continue;
      await this.withRenewal(id, lease, (ended) => this.work(id, lease, ended));
      return true;
    }
    return false;
  }

  /** Keeps the lease while `fn` runs, and aborts its waits once the crawl no longer runs. */
  private async withRenewal(id: string, lease: Lease, fn: (signal: AbortSignal) => Promise<void>): Promise<void> {
    const ended = new AbortController();
    const every = Math.max(200, Math.floor(this.options.leaseMs / 3));
    const timer = setInterval(() => {
      void (async () => {
        if ((await this.store.status(id)) !== 'scraping') ended.abort();
        else await this.store.renew(id, lease, this.options.leaseMs);
      })().catch((e: unknown) => this.options.onError?.(`renewing a lease of crawl ${id}`, e));
    }, every);
    try {
      await fn(ended.signal);
    } finally {
      clearInterval(timer);
    }
  }

  private async work(id: string, lease: Lease, ended: AbortSignal): Promise<void> {
    const crawl = await this.context(id);
    if (!crawl) {
      await this.store.settle(id, lease, 'dropped');
      return;
    }
    const item = lease.item;
    if (item.k === 'seed') return this.seed(id, crawl, lease);
    const url = item.u;
    if (lease.tries > this.options.maxTries) {
      const error = `taken ${lease.tries - 1} times without an answer (its worker stopped each time)`;
      await this.ended(
        id,
        await this.store.settle(id, lease, 'error', '', { error: { url, code: 'INTERNAL', error } }),
      );
      return;
    }
    const host = new URL(url).host;
    const rules = await this.rulesFor(id, crawl, url);
    if (!rules.allowed(url)) {
      await this.ended(id, await this.store.settle(id, lease, 'none', '', { blocked: [url] }));
      return;
    }
    const options = crawl.request.scrapeOptions;
    const signal = AbortSignal.any([this.stop.signal, ended]);
    const token = await this.budget.acquire(
      {
        host,
        maxConcurrency: crawl.request.maxConcurrency,
        delayMs: Math.max(crawl.request.delay, rules.crawlDelayMs ?? 0),
        slotMs: options.timeout + 10_000,
        signal,
      },
      randomUUID(),
    );
    // A crawl cancelled while this page waited for its slot starts no new page.
    if (!token || (await this.store.status(id)) !== 'scraping') {
      if (token) await this.budget.release(host, token);
      await this.store.requeue(id, lease, 'outage');
      return;
    }
    let result: ScrapeResult;
    try {
      const request: ScrapePageRequestDto = {
        url,
        ...pageOptionsOf(options),
        ...(crawl.owner !== NO_OWNER ? { tenant: crawl.owner } : {}),
      };
      result = await this.scrape(request, options.timeout, ended);
    } catch (e) {
      // The crawl ended while the page was scraped (its scrape abandoned): no error of the page's, as for a page that
      // waited for its slot.
      if (ended.aborted) await this.store.requeue(id, lease, 'outage');
      else await this.failed(id, lease, e);
      return;
    } finally {
      await this.budget.release(host, token).catch(() => undefined);
    }
    await this.store.fleetBack(id);
    if (result.rawStatus === 429) {
      // The host asks to slow down: no request to it for a while (as long as it said, when it said), the page later.
      await this.budget.slowDown(host, slowDownMs(crawl.request.delay, lease.tries, result.metadata.retryAfter));
      if (lease.tries >= this.options.maxTries) {
        const error = {
          url,
          code: 'UPSTREAM_BLOCKED',
          error: `${host} answered 429 Too Many Requests ${lease.tries} times`,
        };
        await this.ended(id, await this.store.settle(id, lease, 'error', '', { error }));
      } else await this.store.requeue(id, lease, 'retry');
      return;
    }
    await this.page(id, crawl, lease, item.d, url, result);
  }

  /** A scraped page: its links admitted, its document claimed and stored once, its lease settled. */
  private async page(
    id: string,
    crawl: CrawlContext,
    lease: Lease,
    depth: number,
    url: string,
    result: ScrapeResult,
  ): Promise<void> {
    const { request, scope } = crawl;
    const ignoreQuery = request.ignoreQueryParameters;
    const finalUrl = normalizeCrawlUrl(result.metadata.url || url, undefined, ignoreQuery) ?? url;
    if (!isUrlInScope(finalUrl, scope)) {
      // Redirected off the crawl's scope: not one of its pages.
      await this.ended(id, await this.store.settle(id, lease, 'none'));
      return;
    }
    const html = result.html !== undefined ? decodeScrapeHtml(result.html) : '';
    const read = extractPageLinks(html, finalUrl, { ignoreQuery });
    const blocked: string[] = [];
    if (depth < request.maxDepth && !read.nofollow) {
      const next = await this.admissible(id, crawl, read.links, blocked);
      await this.store.admit(id, request.limit, next, depth + 1);
    }
    const canonical = read.canonical && isUrlInScope(read.canonical, scope) ? read.canonical : undefined;
    const key = canonical ?? finalUrl;
    const claim = await this.store.claimDocument(id, key, url);
    if (claim === 'duplicate') {
      await this.ended(id, await this.store.settle(id, lease, 'none', '', { blocked }));
      return;
    }
    const document = documentOf(result, url, request.scrapeOptions.formats);
    if (claim === 'new') await this.documents.put(id, key, document);
    // Before the settle: a worker that dies here leaves the page to another, which publishes the same event id.
    if (request.webhook) {
      await this.options.events?.page(
        {
          id,
          owner: crawl.owner === NO_OWNER ? undefined : crawl.owner,
          webhook: request.webhook,
          webhookOptions: request.webhookOptions,
        },
        key,
        { id, status: 'scraping', data: [document] },
      );
    }
    await this.ended(id, await this.store.settle(id, lease, 'document', key, { blocked }));
  }

  /**
   * Of a page's links, those the crawl may take: in scope and allowed by their host's robots.txt; those in scope that
   * robots.txt refuses are added to `blocked` (the crawl's robotsBlocked).
   */
  private async admissible(
    id: string,
    crawl: CrawlContext,
    links: readonly string[],
    blocked: string[] = [],
  ): Promise<string[]> {
    const out: string[] = [];
    for (const link of links) {
      if (!isUrlInScope(link, crawl.scope)) continue;
      if ((await this.rulesFor(id, crawl, link)).allowed(link)) out.push(link);
      else blocked.push(link);
    }
    return out;
  }

  /** The seed: robots.txt of the start host, the start URL, then the sitemaps' URLs (in scope, allowed). */
  private async seed(id: string, crawl: CrawlContext, lease: Lease): Promise<void> {
    const { request } = crawl;
    const start = normalizeCrawlUrl(request.url, undefined, request.ignoreQueryParameters) ?? request.url;
    const rules = await this.rulesFor(id, crawl, start);
    const blocked: string[] = [];
    if (request.sitemap !== 'only') {
      if (rules.allowed(start)) await this.store.admit(id, request.limit, [start], 0);
      else blocked.push(start);
    }
    if (request.sitemap !== 'skip') {
      const bounds = this.options.sitemapBounds ?? DEFAULT_SITEMAP_BOUNDS;
      const urls = await readSitemaps(
        (u) => this.politeFetch(crawl, u, rules),
        start,
        rules.sitemaps,
        { ...bounds, maxUrls: Math.min(bounds.maxUrls, 2 * request.limit + 1000) },
        request.ignoreQueryParameters,
      );
      const inScope = await this.admissible(id, crawl, urls, blocked);
      await this.store.admit(id, request.limit, inScope, 0);
    }
    await this.ended(id, await this.store.settle(id, lease, 'dropped', '', { blocked }));
  }

  /** A discovery fetch (robots.txt, sitemap) through the guard, holding a slot of the host's budget like a page. */
  private async politeFetch(crawl: CrawlContext, url: string, rules?: RobotsRules): Promise<SafeFetchResponse> {
    const host = new URL(url).host;
    const token = await this.budget.acquire(
      {
        host,
        maxConcurrency: crawl.request.maxConcurrency,
        delayMs: Math.max(crawl.request.delay, rules?.crawlDelayMs ?? 0),
        slotMs: crawl.request.scrapeOptions.timeout + 10_000,
        signal: this.stop.signal,
      },
      randomUUID(),
    );
    if (!token) throw new TrawlError('SERVICE_UNAVAILABLE', 'the crawl worker is stopping');
    try {
      const res = await this.fetch(url);
      if (res.status === 429 || res.status === 503) {
        const after = retryAfterMs(res.headers['retry-after']);
        if (after !== undefined) await this.budget.slowDown(host, Math.min(after, MAX_SLOW_DOWN_MS));
      }
      return res;
    } finally {
      await this.budget.release(host, token).catch(() => undefined);
    }
  }

  /** robots.txt rules of a URL's host for this crawl: from this replica's cache, the crawl's record, or fetched. */
  private async rulesFor(id: string, crawl: CrawlContext, url: string): Promise<RobotsRules> {
    const host = new URL(url).host;
    const cacheKey = `${id} ${host}`;
    const cached = this.rules.get(cacheKey);
    if (cached) return cached;
    const robotsUrl = robotsUrlOf(url);
    const stored = await this.store.robots(id, host);
    let record: RobotsRecord;
    if (stored) record = JSON.parse(stored) as RobotsRecord;
    else {
      record = await readRobots((u) => this.politeFetch(crawl, u), robotsUrl);
      await this.store.saveRobots(id, host, JSON.stringify(record));
    }
    const rules = robotsRules(robotsUrl, record, this.options.robotsAgent);
    const bounded: RobotsRules =
      rules.crawlDelayMs !== undefined
        ? { ...rules, crawlDelayMs: Math.min(rules.crawlDelayMs, this.options.maxCrawlDelayMs) }
        : rules;
    remember(this.rules, cacheKey, bounded, RULES_CACHE);
    return bounded;
  }

  /** A page that did not scrape: an outage waits (bounded), a retryable error is tried again, others settle. */
  private async failed(id: string, lease: Lease, e: unknown): Promise<void> {
    if (e instanceof FleetUnavailableError) {
      await this.store.requeue(id, lease, 'outage');
      const since = await this.store.fleetAway(id);
      if (Date.now() - since > this.options.fleetMaxWaitMs) {
        const message = `the crawl waited ${this.options.fleetMaxWaitMs} ms for its extractors: ${e.message}`;
        if (await this.store.end(id, 'failed', { code: 'SERVICE_UNAVAILABLE', message })) await this.ended(id, 'ended');
        return;
      }
      await sleep(this.options.fleetProbeMs, this.stop.signal);
      return;
    }
    const retryable = e instanceof TrawlError ? e.retryable : false;
    if (!(e instanceof TrawlError)) this.options.onError?.(`a page of crawl ${id}`, e);
    if (retryable && lease.tries < this.options.maxTries) {
      await this.store.requeue(id, lease, 'retry');
      return;
    }
    const url = lease.item.k === 'page' ? lease.item.u : '';
    const error =
      e instanceof TrawlError
        ? { url, code: e.code, error: e.message }
        : { url, code: 'INTERNAL', error: 'the page could not be scraped' };
    await this.ended(id, await this.store.settle(id, lease, 'error', '', { error }));
  }

  private async ended(id: string, outcome: 'ok' | 'lost' | 'ended'): Promise<void> {
    if (outcome === 'ended') await this.finish(id);
  }

  /**
   * An ended crawl leaves the active set once its end event is published: whichever worker finds it ended first
   * publishes (again, after a crash: the event id is stable) and only then removes it, so the event is never lost.
   */
  private async finish(id: string): Promise<void> {
    const meta = await this.store.meta(id);
    if (meta && meta.status !== 'scraping' && meta.request.webhook && this.options.events) {
      await this.options.events.ended(meta, meta.owner === NO_OWNER ? undefined : meta.owner);
    }
    await this.store.deactivate(id);
    this.forget(id);
    this.options.onEnded?.(id);
  }

  private forget(id: string): void {
    this.contexts.delete(id);
    for (const key of this.rules.keys()) if (key.startsWith(`${id} `)) this.rules.delete(key);
  }

  private async context(id: string): Promise<CrawlContext | undefined> {
    const cached = this.contexts.get(id);
    if (cached) return cached;
    const meta = await this.store.meta(id);
    if (!meta) return undefined;
    const context = { request: meta.request, owner: meta.owner, scope: crawlScope(meta.request) };
    remember(this.contexts, id, context, CONTEXT_CACHE);
    return context;
  }
}

/**
 * The order a worker tries active crawls in: keys in a random order, and within a key its crawls from a random
 * start, one crawl of each key before a second of any (every crawl is still tried before the worker idles).
 */
export function turnOrder(
  byOwner: ReadonlyMap<string, readonly string[]>,
  random: () => number = Math.random,
): string[] {
  const owners = [...byOwner.values()].map((ids) => {
    const offset = Math.floor(random() * ids.length);
    return ids.map((_, i) => ids[(offset + i) % ids.length]!);
  });
  for (let i = owners.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [owners[i], owners[j]] = [owners[j]!, owners[i]!];
  }
  const order: string[] = [];
  for (let round = 0; order.length < owners.reduce((n, ids) => n + ids.length, 0); round++) {
    for (const ids of owners) if (round < ids.length) order.push(ids[round]!);
  }
  return order;
}

/** The document of a page: the scrape's result with the formats asked for, and the URL the crawl asked for. */
/**
 * How one page of a crawl is scraped: the crawl's page options as POST /scrape takes them (every one given: headers,
 * waitFor, main content and tags, blockAds, actions, location, mobile; ADR 0039), its timeout and engine, and the
 * formats: the page's HTML always (its links come from it; kept in the document only when asked for), the other
 * content formats and a screenshot when asked for.
 */
export function pageOptionsOf(options: CrawlScrapeOptionsDto): Omit<ScrapePageRequestDto, 'url'> {
  const page = Object.fromEntries(
    PAGE_SCRAPE_OPTION_FIELDS.filter((f) => f !== 'formats' && options[f] !== undefined).map((f) => [f, options[f]]),
  );
  return {
    formats: [
      ...SCRAPE_FORMATS.filter((f) => f === 'html' || options.formats.includes(f)),
      ...options.formats.filter((f) => typeof f !== 'string' || f.startsWith('screenshot')),
    ],
    timeout: options.timeout,
    ...(options.engine ? { engine: options.engine } : {}),
    ...page,
  };
}

export function documentOf(result: ScrapeResult, sourceURL: string, formats: readonly CrawlFormat[]): CrawlDocument {
  const { html, markdown, metadata, ...rest } = result;
  return {
    ...rest,
    ...(formats.includes('markdown') && markdown !== undefined ? { markdown } : {}),
    ...(formats.includes('html') && html !== undefined ? { html } : {}),
    metadata: { ...metadata, sourceURL, statusCode: result.rawStatus },
  };
}

/** The longest a host that asked to slow down is left alone: a `Retry-After` of hours does not park a crawl. */
export const MAX_SLOW_DOWN_MS = 60_000;

/**
 * How long a host that answered a page with 429 is left alone: a backoff that doubles with each try of the page (from
 * twice the crawl's delay, at least a second), or the host's own `Retry-After` when it asks for longer; at most
 * `MAX_SLOW_DOWN_MS`.
 */
export function slowDownMs(delayMs: number, tries: number, retryAfter?: string, now = Date.now()): number {
  const backoff = Math.max(1000, 2 * delayMs) * 2 ** tries;
  return Math.min(MAX_SLOW_DOWN_MS, Math.max(backoff, retryAfterMs(retryAfter, now) ?? 0));
}

/** `Retry-After` as ms: seconds or an HTTP date. */
export function retryAfterMs(value: string | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

function remember<V>(map: Map<string, V>, key: string, value: V, max: number): void {
  if (map.size >= max) map.delete(map.keys().next().value as string);
  map.set(key, value);
}
