import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { CrawlRequestDto, encodeScrapeHtml, parseDto, TrawlError, type ScrapeResult } from '@trawl/contracts';
import { connectNats } from '@trawl/messaging';
import { createRedisClient, standaloneRedisTopology, type RedisClient } from '@trawl/redis';
import { parseAllowList, safeFetch } from '@trawl/safe-fetch';
import { startCrawlTrapSite, startNats, startRedis, type CrawlTrapSite, type TestServer } from '@trawl/testing';
import { CrawlDocumentsStore } from './crawl-documents.store.js';
import { CrawlStore } from './crawl.store.js';
import { hostBudgetKeys } from './crawl-redis-keys.constants.js';
import { CrawlWorkers, MAX_SLOW_DOWN_MS, slowDownMs, turnOrder, type PageScraper } from './crawl-workers.service.js';
import { HostBudgetLimiter } from './host-budget.limiter.js';
import { extractPageLinks } from './page-links.extractor.js';

const allow = parseAllowList(['127.0.0.1']);

/** A scraper that fetches the page itself (what extractor-scrape's HTTP engine answers, without NATS). */
const httpScraper: PageScraper = async (request) => {
  const res = await safeFetch(request.url, { allow, timeoutMs: request.timeout });
  const text = res.text();
  const title = extractPageLinks(text, res.url).title ?? '';
  return {
    sourceURL: request.url,
    taskId: 't',
    edgeId: 'spec',
    status: 200,
    rawStatus: res.status,
    html: encodeScrapeHtml(text),
    markdown: `# ${title}`,
    metadata: { title, url: res.url, engine: 'http', contentType: res.headers['content-type'] ?? null },
  } satisfies ScrapeResult;
};

describe('turnOrder: the order a worker tries the active crawls in', () => {
  const byOwner = new Map([
    ['key-a', ['a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'a7', 'a8']],
    ['key-b', ['b1']],
    ['key-c', ['c1', 'c2']],
  ]);
  /** A seeded generator, so each draw of the property below is a different, repeatable order. */
  const seeded = (seed: number) => () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };

  it('tries one crawl of every key before a second of any, and every crawl once, whatever the draw', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const order = turnOrder(byOwner, seeded(seed));
      expect([...order].sort()).toEqual([...byOwner.values()].flat().sort());
      expect(new Set(order.slice(0, 3).map((id) => id[0]))).toEqual(new Set(['a', 'b', 'c']));
      // Round two: the second crawl of each key that has one, before any third.
      expect(new Set(order.slice(3, 5).map((id) => id[0]))).toEqual(new Set(['a', 'c']));
    }
  });

  it('varies which key goes first and which of its crawls, so no key or crawl is always last', () => {
    const firsts = new Set<string>();
    for (let seed = 1; seed <= 200; seed++) firsts.add(turnOrder(byOwner, seeded(seed))[0]!);
    expect([...firsts].filter((id) => id.startsWith('a')).length).toBeGreaterThan(1);
    expect(firsts).toContain('b1');
    expect(turnOrder(new Map())).toEqual([]);
  });
});

describe('slowDownMs: how long a host that answered 429 is left alone', () => {
  const now = Date.parse('2026-11-29T08:00:00Z');

  it('backs off twice as long each try, from twice the delay and at least a second, up to a minute', () => {
    expect([1, 2, 3].map((tries) => slowDownMs(0, tries, undefined, now))).toEqual([2000, 4000, 8000]);
    expect(slowDownMs(1500, 1, undefined, now)).toBe(6000);
    expect(slowDownMs(0, 10, undefined, now)).toBe(MAX_SLOW_DOWN_MS);
  });

  it("waits as long as the host's Retry-After asks when that is longer, in seconds or as a date, up to a minute", () => {
    expect(slowDownMs(0, 1, '40', now)).toBe(40_000);
    expect(slowDownMs(0, 1, ' 7 ', now)).toBe(7000);
    expect(slowDownMs(0, 3, '1', now)).toBe(8000); // shorter than the backoff: the backoff
    expect(slowDownMs(0, 1, 'Sun, 29 Nov 2026 08:00:30 GMT', now)).toBe(30_000);
    expect(slowDownMs(0, 1, '86400', now)).toBe(MAX_SLOW_DOWN_MS);
    expect(slowDownMs(0, 1, 'soon', now)).toBe(2000); // not a number nor a date: ignored
  });
});

describe('CrawlWorkers (real Redis and NATS JetStream, a local site of traps)', () => {
  let redisServer: TestServer;
  let natsServer: TestServer;
  let redis: RedisClient;
  let nc: NatsConnection;
  let site: CrawlTrapSite;
  let store: CrawlStore;
  let documents: CrawlDocumentsStore;
  let workers: CrawlWorkers | undefined;

  beforeAll(async () => {
    redisServer = await startRedis({ persist: false });
    natsServer = await startNats();
    redis = createRedisClient(standaloneRedisTopology(redisServer.url), { name: 'crawl-spec', role: 'command' });
    nc = await connectNats([natsServer.url], 'crawl-spec');
    documents = new CrawlDocumentsStore(jetstream(nc), await jetstreamManager(nc), {
      maxBytes: 64 * 1024 * 1024,
      maxAgeMs: 60 * 60 * 1000,
      maxDocumentBytes: 4 * 1024 * 1024,
      duplicateWindowMs: 10 * 60 * 1000,
    });
    await documents.ensureStream();
    store = new CrawlStore(redis, { retentionSec: 3600 });
  });

  afterEach(async () => {
    await workers?.close();
    workers = undefined;
    await site?.close();
  });

  afterAll(async () => {
    await nc?.close();
    redis?.disconnect();
    await natsServer?.stop();
    await redisServer?.stop();
  });

  function startWorkers(scrape: PageScraper, concurrency = 4): CrawlWorkers {
    const w = new CrawlWorkers(
      store,
      new HostBudgetLimiter(redis),
      documents,
      scrape,
      (url) => safeFetch(url, { allow, timeoutMs: 5000 }),
      {
        concurrency,
        leaseMs: 5000,
        maxTries: 3,
        fleetMaxWaitMs: 60_000,
        fleetProbeMs: 50,
        idleMs: 20,
        robotsAgent: 'Trawl',
        maxCrawlDelayMs: 1000,
      },
    );
    w.start();
    return w;
  }

  async function until(id: string, statuses: string[]): Promise<void> {
    for (;;) {
      const status = await store.status(id);
      if (status && statuses.includes(status)) return;
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  async function allDocuments(id: string) {
    const page = await documents.page(id, 1, 64 * 1024 * 1024, 100_000);
    return page.documents;
  }

  it("passes the crawl's page options to each page's scrape (every option of /scrape, ADR 0039)", async () => {
    site = await startCrawlTrapSite();
    const page = {
      onlyMainContent: false,
      includeTags: ['main'],
      excludeTags: ['.ad'],
      waitFor: 5,
      headers: { 'X-Probe': 'p1' },
      blockAds: false,
      actions: [{ type: 'wait', milliseconds: 5 }],
    };
    const request = parseDto(CrawlRequestDto, {
      url: `${site.url}/`,
      limit: 2,
      sitemap: 'skip',
      scrapeOptions: { ...page, formats: ['markdown', { type: 'screenshot', fullPage: true }] },
    });
    await store.create('c'.repeat(32), 'key-1', request);
    const asked: Parameters<PageScraper>[0][] = [];
    workers = startWorkers(async (req, timeoutMs) => {
      asked.push(req);
      const shot = req.formats.some((f) => typeof f === 'object' && f.type === 'screenshot');
      return { ...(await httpScraper(req, timeoutMs)), ...(shot ? { screenshot: 'data:image/png;base64,AA==' } : {}) };
    });
    await until('c'.repeat(32), ['completed']);
    expect(asked.length).toBeGreaterThan(0);
    for (const req of asked) {
      expect(req).toMatchObject({ ...page, tenant: 'key-1' });
      // The HTML always (the links come from it), the screenshot entry as given.
      expect(req.formats).toEqual(['markdown', 'html', { type: 'screenshot', fullPage: true }]);
      expect(req.mobile).toBeUndefined();
    }
    const docs = await allDocuments('c'.repeat(32));
    expect(docs.length).toBeGreaterThan(0);
    for (const doc of docs) {
      expect(doc.screenshot).toBe('data:image/png;base64,AA==');
      expect(doc.html).toBeUndefined();
    }
  });

  it('crawls each real page once: robots obeyed, sitemaps and links followed, traps ended, scope kept', async () => {
    site = await startCrawlTrapSite();
    const request = parseDto(CrawlRequestDto, { url: `${site.url}/`, limit: 100, maxDepth: 3, maxConcurrency: 2 });
    await store.create('a'.repeat(32), 'key-1', request);
    workers = startWorkers(httpScraper);
    await until('a'.repeat(32), ['completed']);
    const docs = await allDocuments('a'.repeat(32));
    const titles = docs.map((d) => d.metadata.title).sort();
    const expected = site.realPages(3).map((p) => `${site.url}${p}`);
    expect(titles).toEqual(
      ['Home', 'About', 'Hidden one', 'Hidden two', 'Doc 1', 'Doc 2', 'Doc 3', 'Product']
        .concat(['Calendar 0', 'Calendar 1', 'Calendar 2', 'Calendar -1', 'Calendar -2'])
        .sort(),
    );
    expect(docs).toHaveLength(expected.length);
    expect(site.requests.filter((p) => p.startsWith('/private/'))).toEqual([]);
    expect(site.otherRequests).toEqual([]);
    expect(site.requests.filter((p) => p === '/robots.txt')).toHaveLength(1);
    expect(site.maxInFlight()).toBeLessThanOrEqual(2);
    // Every document names the URL the crawl asked for; the page of the session-id links is stored once.
    for (const d of docs) expect(d.metadata.sourceURL.startsWith(site.url)).toBe(true);
    const meta = await store.meta('a'.repeat(32));
    expect(meta).toMatchObject({ status: 'completed', documents: docs.length });
    expect(meta!.completed).toBe(meta!.total);
    // The redirect loop is an error for its URL, tried a bounded number of times.
    expect(meta!.failed).toBe(1);
    // Its error is kept with the URL and the engine's words; what robots.txt refused is listed, each URL once.
    const { errors, robotsBlocked } = await store.errors('a'.repeat(32));
    expect(errors).toEqual([
      {
        url: expect.stringMatching(/\/loop\/[ab]$/),
        code: expect.any(String),
        error: expect.stringMatching(/redirect/i),
        at: expect.any(Number),
      },
    ]);
    expect(robotsBlocked).toEqual(
      ['/private/doc', '/private/listed', '/private/secret'].map((p) => `${site.url}${p}`).sort(),
    );
    expect(await redis.ttl(`trawl:{crawl:${'a'.repeat(32)}}:errors`)).toBeGreaterThan(0);
  });

  it('stops at the limit however many links the site has', async () => {
    site = await startCrawlTrapSite({ delayMs: 0 });
    const id = 'b'.repeat(32);
    const request = parseDto(CrawlRequestDto, { url: `${site.url}/`, limit: 5, sitemap: 'skip', maxConcurrency: 4 });
    await store.create(id, undefined, request);
    workers = startWorkers(httpScraper);
    await until(id, ['completed']);
    const meta = await store.meta(id);
    expect(meta!.total).toBe(5);
    expect((await allDocuments(id)).length).toBeLessThanOrEqual(5);
  });

  it('a crawl cancelled starts no new page, and its keys but the record are gone', async () => {
    site = await startCrawlTrapSite({ delayMs: 50 });
    const id = 'c'.repeat(32);
    const request = parseDto(CrawlRequestDto, { url: `${site.url}/`, limit: 100, maxDepth: 50, maxConcurrency: 1 });
    await store.create(id, undefined, request);
    let scraped = 0;
    let release: () => void = () => undefined;
    const third = new Promise<void>((r) => (release = r));
    workers = startWorkers(async (r, t) => {
      scraped += 1;
      if (scraped === 3) release();
      return httpScraper(r, t);
    });
    await third;
    expect(await store.end(id, 'cancelled')).toBe(true);
    const seen = scraped;
    await until(id, ['cancelled']);
    for (;;) {
      if ((await redis.exists(`trawl:{crawl:${id}}:leases`)) === 0) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(scraped).toBeLessThanOrEqual(seen + 1);
    expect(await redis.exists(`trawl:{crawl:${id}}:frontier`, `trawl:{crawl:${id}}:seen`)).toBe(0);
    expect(await redis.ttl(`trawl:{crawl:${id}}:meta`)).toBeGreaterThan(0);
  });

  it('a crawl cancelled abandons its page in flight (ADR 0043): the scrape is told, and no error is recorded', async () => {
    site = await startCrawlTrapSite();
    const id = 'f'.repeat(32);
    await store.create(id, undefined, parseDto(CrawlRequestDto, { url: `${site.url}/`, limit: 5, sitemap: 'skip' }));
    const signals: AbortSignal[] = [];
    workers = startWorkers(async (_request, _timeoutMs, abandon) => {
      if (abandon) signals.push(abandon);
      // A page that does not answer: only the abandon ends its scrape (as extractor-scrape does once told).
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 60_000).unref();
        abandon?.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
      });
      throw new TrawlError('TASK_CANCELLED', 'the caller abandoned the request', { retryable: false });
    });
    while (signals.length === 0) await new Promise((r) => setTimeout(r, 25));
    expect(signals[0]!.aborted).toBe(false);
    expect(await store.end(id, 'cancelled')).toBe(true);
    while (!signals[0]!.aborted) await new Promise((r) => setTimeout(r, 25));
    for (;;) {
      if ((await redis.exists(`trawl:{crawl:${id}}:leases`)) === 0) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(signals).toHaveLength(1);
    expect(await store.errors(id)).toMatchObject({ errors: [] });
    expect(await store.status(id)).toBe('cancelled');
  });

  it('leaves a host that answered 429 alone for as long as its Retry-After said; the page waits, not failed', async () => {
    site = await startCrawlTrapSite();
    const id = 'e'.repeat(32);
    await store.create(id, undefined, parseDto(CrawlRequestDto, { url: `${site.url}/`, limit: 1, sitemap: 'skip' }));
    const calls: number[] = [];
    workers = startWorkers(async (req, timeoutMs) => {
      calls.push(Date.now());
      const page = await httpScraper(req, timeoutMs);
      return { ...page, rawStatus: 429, metadata: { ...page.metadata, retryAfter: '40' } };
    });
    // The crawl's delay is 0: the host's next start is set only by the slow down.
    const next = hostBudgetKeys(new URL(site.url).host).next;
    let at = 0;
    while (at === 0) {
      at = Number((await redis.get(next)) ?? 0);
      if (at === 0) await new Promise((r) => setTimeout(r, 25));
    }
    expect(at).toBeGreaterThanOrEqual(calls[0]! + 40_000);
    expect(calls).toHaveLength(1);
    expect(await store.status(id)).toBe('scraping'); // the page waits its turn again, not failed
    await store.end(id, 'cancelled');
  });

  it('a page whose worker died is worked on again, and its document is stored once', async () => {
    site = await startCrawlTrapSite({ delayMs: 0 });
    const id = 'd'.repeat(32);
    const request = parseDto(CrawlRequestDto, { url: `${site.url}/`, limit: 100, maxDepth: 1, sitemap: 'skip' });
    await store.create(id, undefined, request);
    // A "replica" that stores the home page's document and dies before settling its lease.
    const lease = await store.lease(id, 200);
    if (typeof lease === 'string') throw new Error(`no seed: ${lease}`);
    await store.admit(id, 100, [`${site.url}/`], 0);
    await store.settle(id, lease, 'dropped');
    const page = await store.lease(id, 200);
    if (typeof page === 'string') throw new Error(`no page: ${page}`);
    const home = await httpScraper({ url: `${site.url}/`, formats: ['markdown'], timeout: 5000 }, 5000);
    expect(await store.claimDocument(id, `${site.url}/`, `${site.url}/`)).toBe('new');
    await documents.put(id, `${site.url}/`, {
      ...home,
      metadata: { ...home.metadata, sourceURL: home.sourceURL, statusCode: 200 },
    });
    // Its lease lapses; a live replica takes the page again.
    workers = startWorkers(httpScraper, 2);
    await until(id, ['completed']);
    const docs = await allDocuments(id);
    expect(docs.filter((d) => d.metadata.title === 'Home')).toHaveLength(1);
    expect((await store.meta(id))!.documents).toBe(docs.length);
  });
});
