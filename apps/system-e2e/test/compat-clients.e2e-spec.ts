import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import Firecrawl, { FirecrawlAppV1, SdkError } from '@mendable/firecrawl-js';
import { getJson } from 'serpapi';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  startBuiltSimulator,
  startCrawlTrapSite,
  startLoopbackHttp,
  startRedis,
  eventually,
  type CrawlTrapSite,
  type LoopbackServer,
  type RestartableTestServer,
  type RunningSimulator,
} from '@trawl/testing';
import { API_KEY, SIGNING_SECRET, startStack, WORKSPACE_ROOT, type Stack } from './support/stack.js';
import { TrawlSerpApiAgent } from './support/trawl-serpapi-agent.js';
import { startWebhookReceiver } from './support/webhook-receiver.js';

const KEY_B = 'system-e2e-compat-key-b';
/** A key only the queue-status test uses: its counts start at nothing. */
const KEY_QUEUE = 'system-e2e-compat-key-queue';
const ASIN = 'B0DR8G428S';
/** How long a Firecrawl batch may stay unfinished in this stack (COMPAT_BATCH_DEADLINE_MS). */
const BATCH_DEADLINE_MS = 20_000;

/** Depth and per-host concurrency of the crawls of the trap site (as apps/system-e2e/test/crawl.e2e-spec.ts). */
const CRAWL_DEPTH = 3;
const CRAWL_CONCURRENCY = 2;
/** The titles of the pages a crawl of the trap site at CRAWL_DEPTH stores, each once (crawl.e2e-spec.ts). */
const CRAWL_TITLES = [
  'Home',
  'About',
  'Hidden one',
  'Hidden two',
  'Doc 1',
  'Doc 2',
  'Doc 3',
  'Product',
  ...Array.from({ length: CRAWL_DEPTH }, (_, m) => `Calendar ${m}`),
  ...Array.from({ length: CRAWL_DEPTH - 1 }, (_, m) => `Calendar ${-(m + 1)}`),
].sort();

/** An article between site furniture; the `X-Probe` header it was asked with is written into its headline. */
function articlePage(path: string, probe: string): string {
  const paragraph = `The story of ${path} goes on for a while, so that it is the main content of the page. `.repeat(4);
  return `<!doctype html><html lang="en"><head><title>Article ${path}</title></head><body>
<header><ul class="menu"><li><a href="/news">News</a></li><li><a href="/sport">Sport</a></li></ul></header>
<div class="cookie-banner">We use cookies.</div>
<main><article><h1>Article ${path}, probe ${probe}</h1>${`<p>${paragraph}</p>`.repeat(5)}</article></main>
<aside class="sidebar"><h3>Most read</h3><ul><li><a href="/a">Heatwave warning</a></li></ul></aside>
<footer><p>All rights reserved.</p></footer></body></html>`;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the clients' JSON as they return it
type Json = any;

/**
 * Issue 22, "must show" 1-3: the real clients, unchanged and pinned, against the whole stack (every service a
 * process; real Redis, NATS and Chromium; the upstream simulator in its 2026 mode): firecrawl-js 4.42.0 (v2 scrape,
 * batch scrape to completion, search; its bundled v1 client), serpapi 2.2.1 (google, google_maps; routed through its
 * requestOptions.agent hook), the MCP SDK 1.32.2 client (initialize, list tools, call each) and firecrawl-mcp 3.26.0
 * over stdio with FIRECRAWL_API_URL. Tenancy through the compatible routes, and a batch whose extractor is gone.
 */
describe('peer clients against the whole stack (Firecrawl, SerpAPI, MCP)', () => {
  let simulator: RunningSimulator;
  let site: LoopbackServer;
  let cacheRedis: RestartableTestServer;
  let stack: Stack;
  let root = '';
  const siteHits = new Map<string, number>();
  /** Pages under /hold/ answer only when `releaseHeld` is called: a scrape kept in flight, a job kept running. */
  const held: (() => void)[] = [];
  const releaseHeld = () => {
    for (const answer of held.splice(0)) answer();
  };

  beforeAll(async () => {
    simulator = await startBuiltSimulator({ SIMULATOR_MODE: '2026' });
    site = await startLoopbackHttp((req, res) => {
      const path = req.url ?? '/';
      siteHits.set(path, (siteHits.get(path) ?? 0) + 1);
      if (path.startsWith('/hold/')) {
        const answer = () => {
          res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
          res.end(
            `<!doctype html><html><head><title>Held ${path}</title></head><body><p>Held ${path}.</p></body></html>`,
          );
        };
        // Only a path's first request is held (an engine that asks again is answered at once).
        if (siteHits.get(path) === 1) held.push(answer);
        else answer();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      if (path.startsWith('/article/')) {
        const probe = req.headers['x-probe'];
        res.end(articlePage(path, typeof probe === 'string' ? probe : 'none'));
        return;
      }
      res.end(
        `<!doctype html><html lang="en"><head><title>Page ${path}</title></head>` +
          `<body><h1>Heading ${path}</h1><p>Some text of ${path}.</p></body></html>`,
      );
    });
    cacheRedis = await startRedis({ persist: false });
    const admin = new Redis(cacheRedis.url);
    await admin.config('SET', 'maxmemory', '32mb');
    await admin.config('SET', 'maxmemory-policy', 'allkeys-lru');
    admin.disconnect();
    stack = await startStack(
      [
        'gateway',
        'extractor-scrape',
        'extractor-search',
        'extractor-maps',
        'extractor-retail',
        'task-service',
        'webhook-dispatcher',
      ],
      {
        API_KEYS: `${API_KEY},${KEY_B},${KEY_QUEUE}`,
        SEARCH_BASE_URL: simulator.url,
        MAPS_BASE_URL: simulator.url,
        RETAIL_BASE_URL: simulator.url,
        SSRF_ALLOW_HOSTS: '127.0.0.1',
        TASK_SCRAPE_ENGINE: 'http',
        CACHE_REDIS_URL: cacheRedis.url,
        COMPAT_BATCH_DEADLINE_MS: String(BATCH_DEADLINE_MS),
      },
    );
    root = new URL(stack.baseUrl).origin;
  }, 180_000);

  afterAll(async () => {
    releaseHeld();
    await stack?.stop();
    await simulator?.stop();
    await site?.close();
    await cacheRedis?.stop();
  });

  const firecrawl = (key = API_KEY) => new Firecrawl({ apiKey: key, apiUrl: root });

  describe('firecrawl-js 4.42.0', () => {
    it('v2 scrape: markdown and Firecrawl metadata', async () => {
      const doc = await firecrawl().scrape(`${site.url}/fc-page`, { formats: ['markdown', 'html'] });
      expect(doc.markdown).toContain('Heading /fc-page');
      expect(doc.html).toContain('<h1>Heading /fc-page</h1>');
      expect(doc.metadata).toMatchObject({ title: 'Page /fc-page', sourceURL: `${site.url}/fc-page`, statusCode: 200 });
    }, 60_000);

    it("v2 search: data.web from Trawl's own search of the simulator", async () => {
      const found = await firecrawl().search('coffee athens', { limit: 3, country: 'us' });
      expect(found.web?.length).toBe(3);
      expect(found.web?.[0]).toMatchObject({ position: 1 });
      const first = found.web?.[0] as { url: string; title: string };
      expect(first.url).toMatch(/^https?:\/\//);
      expect(first.title.length).toBeGreaterThan(0);
    }, 90_000);

    it('v2 batch scrape runs to completion through task-service', async () => {
      const job = await firecrawl().batchScrape([`${site.url}/b1`, `${site.url}/b2`], {
        pollInterval: 1,
        timeout: 120,
      });
      expect(job.status).toBe('completed');
      expect(job.total).toBe(2);
      expect(job.completed).toBe(2);
      expect(typeof job.creditsUsed).toBe('number');
      expect(
        job.data
          .map((d) => d.markdown ?? '')
          .sort()
          .join('\n'),
      ).toMatch(/Heading \/b1[\s\S]*Heading \/b2/);
    }, 150_000);

    it("v2 batch scrape carries formats beyond markdown onto the native batch's scrapeOptions", async () => {
      const job = await firecrawl().batchScrape([`${site.url}/bf1`], {
        options: { formats: ['markdown', 'rawHtml', 'links'], onlyMainContent: true },
        pollInterval: 1,
        timeout: 120,
      });
      expect(job.status).toBe('completed');
      const [doc] = job.data as Json[];
      expect(doc.markdown).toContain('Heading /bf1');
      expect(doc.rawHtml).toContain('<h1>Heading /bf1</h1>');
      expect(Array.isArray(doc.links)).toBe(true);
    }, 150_000);

    it('v2 batch scrape carries every page option (ADR 0039): main content by default, the whole page, tags, headers', async () => {
      const [main, whole, picked] = await Promise.all([
        firecrawl().batchScrape([`${site.url}/article/main`], { pollInterval: 1, timeout: 120 }),
        firecrawl().batchScrape([`${site.url}/article/whole`], {
          options: {
            formats: ['markdown'],
            onlyMainContent: false,
            excludeTags: ['.cookie-banner'],
            headers: { 'X-Probe': 'fc-7' },
            waitFor: 10,
            maxAge: 0,
          },
          pollInterval: 1,
          timeout: 120,
        }),
        firecrawl().batchScrape([`${site.url}/article/picked`], {
          options: { formats: ['markdown'], includeTags: ['h1', '.sidebar'] },
          pollInterval: 1,
          timeout: 120,
        }),
      ]);
      for (const job of [main, whole, picked]) expect(job.status).toBe('completed');
      const md = (job: { data: Json[] }) => (job.data[0]?.markdown ?? '') as string;
      expect(md(main)).toContain('# Article /article/main, probe none');
      for (const f of ['Sport', 'We use cookies', 'Most read', 'All rights reserved'])
        expect(md(main)).not.toContain(f);
      expect(md(whole)).toContain('# Article /article/whole, probe fc-7');
      for (const f of ['Sport', 'Most read', 'All rights reserved']) expect(md(whole)).toContain(f);
      expect(md(whole)).not.toContain('We use cookies');
      expect(md(picked)).toContain('Most read');
      expect(md(picked)).not.toContain('goes on for a while');
      // The batch's start answers no warning: every option was carried (maxAge is met by a fresh scrape).
      const started = await fetch(`${root}/v2/batch/scrape`, {
        method: 'POST',
        headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          urls: [`${site.url}/article/warn`],
          onlyMainContent: false,
          includeTags: ['article'],
          excludeTags: ['.ad'],
          headers: { 'X-Probe': 'fc-8' },
          waitFor: 10,
          blockAds: false,
          maxAge: 172_800_000,
        }),
      });
      const body = (await started.json()) as Json;
      expect(started.status).toBe(200);
      expect(body).toMatchObject({ success: true });
      expect(body.warning).toBeUndefined();
      const status = await eventually(
        async () => {
          const s = await firecrawl().getBatchScrapeStatus(body.id);
          return s.status === 'completed' ? s : undefined;
        },
        60_000,
        500,
      );
      expect((status.data[0] as Json).markdown).toContain('# Article /article/warn, probe fc-8');
    }, 150_000);

    it("v2 batch scrape refuses a misused page option in Firecrawl's error shape; v1 too", async () => {
      const err = await firecrawl()
        .startBatchScrape([`${site.url}/article/refused`], { options: { includeTags: 'h1' as never } })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SdkError);
      expect((err as SdkError).status).toBe(400);
      for (const path of ['/v2/batch/scrape', '/v1/batch/scrape']) {
        const res = await fetch(`${root}${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
          body: JSON.stringify({ urls: [`${site.url}/article/refused`], onlyMainContent: 'no' }),
        });
        const body = (await res.json()) as Json;
        expect({ path, status: res.status }).toEqual({ path, status: 400 });
        expect(body).toMatchObject({ success: false });
        expect(body.error).toMatch(/onlyMainContent/);
      }
      expect(siteHits.get('/article/refused')).toBeUndefined();
    });

    it("a batch's webhook in Firecrawl's form: one started, a page per URL, one completed; signed, headers, metadata", async () => {
      const receiver = await startWebhookReceiver(SIGNING_SECRET);
      try {
        const urls = [`${site.url}/bw1`, `${site.url}/bw2`, `${site.url}/bw3`];
        const job = await firecrawl().batchScrape(urls, {
          options: { formats: ['markdown'] },
          webhook: { url: `${receiver.url}/batch`, headers: { 'x-run': 'e2e-b' }, metadata: { run: 'b8' } },
          pollInterval: 1,
          timeout: 120,
        });
        expect(job.status).toBe('completed');
        // The dispatcher delivers concurrently: no order between the pages and started / completed, only counts.
        const mine = await eventually(() => {
          const of = receiver.deliveries.filter((d) => d.body?.id === job.id);
          return of.some((d) => d.body.type === 'batch_scrape.completed') &&
            of.some((d) => d.body.type === 'batch_scrape.started') &&
            of.filter((d) => d.body.type === 'batch_scrape.page').length >= urls.length
            ? of
            : undefined;
        }, 60_000);
        for (const d of mine) {
          expect(d.verified).toBe(true);
          expect(d.headers['x-run']).toBe('e2e-b');
          expect(d.body).toMatchObject({ success: true, id: job.id, metadata: { run: 'b8' } });
        }
        expect(new Set(mine.map((d) => d.id)).size).toBe(mine.length);
        expect(mine.filter((d) => d.body.type === 'batch_scrape.started').map((d) => d.body.data)).toEqual([[]]);
        expect(mine.filter((d) => d.body.type === 'batch_scrape.completed').map((d) => d.body.data)).toEqual([[]]);
        const pages = mine.filter((d) => d.body.type === 'batch_scrape.page');
        expect(pages.map((d) => d.body.data[0].metadata.sourceURL).sort()).toEqual([...urls].sort());
        for (const d of pages) {
          expect(d.body.data).toHaveLength(1);
          const [doc] = d.body.data as Json[];
          expect(doc.markdown).toContain(`Heading ${new URL(doc.metadata.sourceURL).pathname}`);
          expect(doc.metadata).toMatchObject({ statusCode: 200 });
          expect(doc.metadata.engine).toBeUndefined();
        }
        // No per-task events for this batch's tasks: only the batch's own.
        expect(receiver.deliveries.filter((d) => typeof d.body?.event === 'string')).toEqual([]);
      } finally {
        await receiver.close();
      }
    }, 150_000);

    it('the bundled v1 client: scrapeUrl, search and batchScrapeUrls (polled at /v1/crawl/{id})', async () => {
      const v1 = new FirecrawlAppV1({ apiKey: API_KEY, apiUrl: root });
      const scraped = (await v1.scrapeUrl(`${site.url}/v1-page`, { formats: ['markdown'] })) as Json;
      expect(scraped.success).toBe(true);
      expect(scraped.markdown).toContain('Heading /v1-page');
      const found = (await v1.search('tea', { limit: 2 })) as Json;
      expect(found.data.length).toBe(2);
      const batch = (await v1.batchScrapeUrls([`${site.url}/v1-b`], { formats: ['markdown'] })) as Json;
      expect(batch).toMatchObject({ success: true, status: 'completed', completed: 1, total: 1 });
    }, 150_000);
  });

  describe('firecrawl-js 4.42.0: crawl and map on the native crawl (the trap site of the crawl e2e)', () => {
    let trap: CrawlTrapSite;
    let slow: CrawlTrapSite;
    beforeAll(async () => {
      trap = await startCrawlTrapSite({ delayMs: 5 });
      // Slow enough that a crawl of it is still running when it is cancelled (14 pages, 2 at a time, 1 s each).
      slow = await startCrawlTrapSite({ delayMs: 1000 });
    });
    afterAll(async () => {
      await trap?.close();
      await slow?.close();
    });
    const titlesOf = (docs: Json[]): string[] => docs.map((d) => d.metadata.title as string).sort();
    const crawlOptions = { limit: 100, maxConcurrency: CRAWL_CONCURRENCY };

    function expectSiteDocuments(docs: Json[]): void {
      expect(titlesOf(docs)).toEqual(CRAWL_TITLES);
      for (const d of docs) {
        expect(d.metadata.sourceURL.startsWith(`${trap.url}/`)).toBe(true);
        expect(d.metadata.statusCode).toBe(200);
        expect(d.markdown).toContain(`# ${d.metadata.title}`);
      }
      expect(trap.requests.filter((p) => p.startsWith('/private/'))).toEqual([]);
      expect(trap.otherRequests).toEqual([]);
    }

    it('v2 crawl runs to completion with its poller: every page once, robots.txt obeyed', async () => {
      const job = await firecrawl().crawl(`${trap.url}/`, {
        ...crawlOptions,
        maxDiscoveryDepth: CRAWL_DEPTH,
        pollInterval: 1,
        timeout: 180,
      });
      expect(job.status).toBe('completed');
      expect(job.completed).toBe(job.total);
      expect(job.creditsUsed).toBe(CRAWL_TITLES.length);
      expect(new Date(job.expiresAt ?? '').getTime()).toBeGreaterThan(Date.now());
      expectSiteDocuments(job.data);
    }, 240_000);

    it('v2 startCrawl, getCrawlStatus and cancelCrawl; key B gets 404 for the crawl id', async () => {
      const started = await firecrawl().startCrawl(`${slow.url}/`, { ...crawlOptions, sitemap: 'skip' });
      expect(started.id).toMatch(/^[0-9a-f]{32}$/);
      expect(started.url).toBe(`${root}/v2/crawl/${started.id}`);
      const running = await firecrawl().getCrawlStatus(started.id);
      expect(running.status).toBe('scraping');
      expect(running.next).toBeNull();
      // The key's running crawls list it, with its start URL and options; key B's do not.
      const active = await firecrawl().getActiveCrawls();
      expect(active.crawls.find((c) => c.id === started.id)).toMatchObject({
        url: `${slow.url}/`,
        options: expect.objectContaining({ maxConcurrency: CRAWL_CONCURRENCY }),
      });
      expect((await firecrawl(KEY_B).getActiveCrawls()).crawls.map((c) => c.id)).not.toContain(started.id);
      const err = await firecrawl(KEY_B)
        .getCrawlStatus(started.id)
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SdkError);
      expect((err as SdkError).status).toBe(404);
      for (const [method, path] of [
        ['GET', `/v2/crawl/${started.id}`],
        ['DELETE', `/v2/crawl/${started.id}`],
        ['GET', `/v1/crawl/${started.id}`],
        ['DELETE', `/v1/crawl/${started.id}`],
      ] as const) {
        const res = await fetch(`${root}${path}`, { method, headers: { authorization: `Bearer ${KEY_B}` } });
        const body = (await res.json()) as Json;
        expect({ method, path, status: res.status, success: body.success, error: typeof body.error }).toEqual({
          method,
          path,
          status: 404,
          success: false,
          error: 'string',
        });
      }
      expect(await firecrawl().cancelCrawl(started.id)).toBe(true);
      const cancelled = await firecrawl().getCrawlStatus(started.id);
      expect(cancelled.status).toBe('cancelled');
      expect(cancelled.creditsUsed).toBeLessThan(CRAWL_TITLES.length);
    }, 120_000);

    it("v2 getCrawlErrors: a finished crawl's failed pages and what robots.txt kept it from; key B gets 404", async () => {
      const started = await firecrawl().startCrawl(`${trap.url}/`, { ...crawlOptions, maxDiscoveryDepth: CRAWL_DEPTH });
      for (;;) {
        const status = await firecrawl().getCrawlStatus(started.id, { autoPaginate: false });
        if (status.status !== 'scraping') break;
        await new Promise((r) => setTimeout(r, 250));
      }
      const { errors, robotsBlocked } = await firecrawl().getCrawlErrors(started.id);
      // The redirect loop is the site's one page that fails; /private/ is refused by its robots.txt, never fetched.
      expect(errors).toEqual([
        expect.objectContaining({
          url: expect.stringMatching(/\/loop\/[ab]$/),
          error: expect.stringMatching(/redirect/i),
        }),
      ]);
      expect(robotsBlocked.length).toBeGreaterThan(0);
      for (const url of robotsBlocked) expect(url.startsWith(`${trap.url}/private/`)).toBe(true);
      expect(trap.requests.filter((p) => p.startsWith('/private/'))).toEqual([]);
      const other = await firecrawl(KEY_B)
        .getCrawlErrors(started.id)
        .catch((e: unknown) => e);
      expect((other as SdkError).status).toBe(404);
    }, 240_000);

    it('v2 crawl carries actions, blockAds and a screenshot to every page, with no warning (ADR 0039)', async () => {
      const res = await fetch(`${root}/v2/crawl`, {
        method: 'POST',
        headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          url: `${trap.url}/`,
          limit: 2,
          sitemap: 'skip',
          scrapeOptions: {
            formats: ['markdown', { type: 'screenshot', quality: 50 }],
            actions: [{ type: 'wait', milliseconds: 10 }, { type: 'scrape' }],
            blockAds: false,
            maxAge: 0,
          },
        }),
      });
      const started = (await res.json()) as Json;
      expect(res.status).toBe(200);
      expect(started.success).toBe(true);
      expect(started.warning).toBeUndefined();
      const job = await eventually(
        async () => {
          const s = await firecrawl().getCrawlStatus(started.id);
          return s.status === 'completed' ? s : undefined;
        },
        120_000,
        500,
      );
      expect(job.data.length).toBe(2);
      for (const doc of job.data as Json[]) {
        expect(doc.markdown).toContain(`# ${doc.metadata.title}`);
        expect(doc.screenshot).toMatch(/^data:image\/jpeg;base64,/);
        expect(doc.actions.scrapes).toHaveLength(1);
        expect(doc.actions.scrapes[0].html).toContain(doc.metadata.title);
      }
    }, 180_000);

    it("v2 map: the sitemaps' pages and those found by links, as { url, title }", async () => {
      const mapped = await firecrawl().map(`${trap.url}/`, { limit: 100 });
      const urls = mapped.links.map((l) => l.url);
      for (const p of [...trap.sitemapPages, ...trap.linkOnlyPages]) expect(urls).toContain(`${trap.url}${p}`);
      expect(urls.filter((u) => !u.startsWith(`${trap.url}/`))).toEqual([]);
      expect(mapped.links.find((l) => l.url === `${trap.url}/about`)?.title).toBe('About');
      const searched = await firecrawl().map(`${trap.url}/`, { search: 'hidden' });
      expect(searched.links.map((l) => l.url).sort()).toEqual([`${trap.url}/hidden/1`, `${trap.url}/hidden/2`]);
    }, 120_000);

    it("a crawl's webhook in Firecrawl's form: its event names and object body, signed; headers, metadata, events", async () => {
      const receiver = await startWebhookReceiver(SIGNING_SECRET);
      try {
        // The URL form: every event, Firecrawl's body.
        const all = await firecrawl().crawl(`${trap.url}/`, {
          ...crawlOptions,
          maxDiscoveryDepth: CRAWL_DEPTH,
          webhook: `${receiver.url}/all`,
          pollInterval: 1,
          timeout: 180,
        } as Json);
        expect(all.status).toBe('completed');
        const ofAll = await eventually(() => {
          const mine = receiver.deliveries.filter((d) => d.body?.id === all.id);
          return mine.some((d) => d.body.type === 'crawl.completed') &&
            mine.filter((d) => d.body.type === 'crawl.page').length >= CRAWL_TITLES.length
            ? mine
            : undefined;
        }, 60_000);
        expect(ofAll.every((d) => d.verified)).toBe(true);
        expect(ofAll.filter((d) => d.body.type === 'crawl.started')).toHaveLength(1);
        const pages = ofAll.filter((d) => d.body.type === 'crawl.page');
        expect(pages.map((d) => d.body.data[0].metadata.title).sort()).toEqual(CRAWL_TITLES);
        for (const d of pages) {
          expect(d.body).toMatchObject({ success: true, id: all.id, metadata: {} });
          expect(d.body.data).toHaveLength(1);
          expect(d.body.data[0].markdown).toContain(`# ${d.body.data[0].metadata.title}`);
          expect(d.body.data[0].metadata.sourceURL.startsWith(`${trap.url}/`)).toBe(true);
          expect(d.body.data[0].metadata.engine).toBeUndefined();
        }
        expect(ofAll.find((d) => d.body.type === 'crawl.completed')?.body).toEqual({
          success: true,
          type: 'crawl.completed',
          id: all.id,
          data: [],
          metadata: {},
        });

        // The object form: its headers sent, its metadata echoed, only the events asked for.
        const some = await firecrawl().crawl(`${trap.url}/`, {
          ...crawlOptions,
          maxDiscoveryDepth: 1,
          webhook: {
            url: `${receiver.url}/some`,
            headers: { 'x-run': 'e2e-7' },
            metadata: { run: 7 },
            events: ['started', 'completed'],
          },
          pollInterval: 1,
          timeout: 180,
        } as Json);
        expect(some.status).toBe('completed');
        await eventually(
          () => receiver.deliveries.some((d) => d.body?.id === some.id && d.body.type === 'crawl.completed'),
          60_000,
        );
        const ofSome = receiver.deliveries.filter((d) => d.body?.id === some.id);
        expect(ofSome.map((d) => d.body.type).sort()).toEqual(['crawl.completed', 'crawl.started']);
        for (const d of ofSome) {
          expect(d.verified).toBe(true);
          expect(d.headers['x-run']).toBe('e2e-7');
          expect(d.body.metadata).toEqual({ run: 7 });
        }
      } finally {
        await receiver.close();
      }
    }, 300_000);

    it('the bundled v1 client: crawlUrl, asyncCrawlUrl + checkCrawlStatus + cancelCrawl, mapUrl', async () => {
      const v1 = new FirecrawlAppV1({ apiKey: API_KEY, apiUrl: root });
      const crawled = (await v1.crawlUrl(`${trap.url}/`, { ...crawlOptions, maxDepth: CRAWL_DEPTH }, 1)) as Json;
      expect(crawled).toMatchObject({ success: true, status: 'completed' });
      expectSiteDocuments(crawled.data);

      const started = (await v1.asyncCrawlUrl(`${slow.url}/`, { ...crawlOptions, ignoreSitemap: true })) as Json;
      expect(started.success).toBe(true);
      const running = (await v1.checkCrawlStatus(started.id)) as Json;
      expect(running).toMatchObject({ success: true, status: 'scraping' });
      expect(await v1.cancelCrawl(started.id)).toMatchObject({ success: true, status: 'cancelled' });
      expect(((await v1.checkCrawlStatus(started.id)) as Json).status).toBe('cancelled');

      const mapped = (await v1.mapUrl(`${trap.url}/`, { limit: 100 })) as Json;
      expect(mapped.success).toBe(true);
      for (const p of trap.sitemapPages) expect(mapped.links).toContain(`${trap.url}${p}`);
      expect(mapped.links.every((l: unknown) => typeof l === 'string')).toBe(true);
    }, 300_000);
  });

  describe('serpapi 2.2.1 (requestOptions.agent to Trawl)', () => {
    let agent: TrawlSerpApiAgent;
    beforeAll(() => {
      agent = new TrawlSerpApiAgent(new URL(root));
    });
    afterAll(() => agent?.destroy());
    const serp = (params: Record<string, unknown>): Promise<Json> =>
      getJson({ api_key: API_KEY, ...params, requestOptions: { agent }, timeout: 90_000 });

    it('engine=google: organic_results and SerpAPI sections', async () => {
      const json = await serp({ engine: 'google', q: 'coffee athens', hl: 'en', gl: 'us' });
      expect(json.search_metadata.status).toBe('Success');
      expect(json.organic_results.length).toBeGreaterThan(0);
      expect(json.organic_results[0]).toMatchObject({ position: 1 });
      expect(json.organic_results[0].link).toMatch(/^https?:\/\//);
      expect(typeof json.organic_results[0].displayed_link).toBe('string');
      expect(JSON.stringify(json)).not.toContain(API_KEY);
    }, 90_000);

    it('engine=google_maps: local_results, and type=place gives place_results', async () => {
      const json = await serp({
        engine: 'google_maps',
        q: 'museum of modern art',
        ll: '@40.76,-73.97,14z',
        type: 'search',
      });
      const places = json.local_results ?? [json.place_results];
      expect(places.length).toBeGreaterThan(0);
      expect(places[0]).toMatchObject({ position: 1 });
      expect(places[0].place_id.length).toBeGreaterThan(0);
      expect(places[0].gps_coordinates).toEqual({ latitude: expect.any(Number), longitude: expect.any(Number) });
      const place = await serp({ engine: 'google_maps', type: 'place', place_id: places[0].place_id });
      expect(place.place_results.place_id).toBe(places[0].place_id);
      expect(place.place_results.title.length).toBeGreaterThan(0);
    }, 120_000);
  });

  describe('MCP', () => {
    it('the MCP SDK client: initialize, list tools, call each', async () => {
      const client = new Client({ name: 'system-e2e', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${root}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${API_KEY}` } },
        }),
      );
      try {
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name).sort()).toEqual([
          'batch_scrape',
          'batch_status',
          'crawl',
          'crawl_cancel',
          'crawl_status',
          'extract',
          'map',
          'maps_search',
          'scrape',
          'search',
        ]);
        const call = async (name: string, args: Record<string, unknown>): Promise<Json> => {
          const res = await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 });
          expect({ name, isError: res.isError ?? false }).toEqual({ name, isError: false });
          return res.structuredContent;
        };
        expect((await call('scrape', { url: `${site.url}/mcp-page` })).document.markdown).toContain(
          'Heading /mcp-page',
        );
        // A screenshot through the browser engine comes back as an image the model can see, beside the page's text.
        const shot = await client.callTool(
          { name: 'scrape', arguments: { url: `${site.url}/mcp-shot`, formats: ['markdown', 'screenshot'] } },
          undefined,
          { timeout: 120_000 },
        );
        expect(shot.isError ?? false).toBe(false);
        const items = shot.content as Json[];
        expect(items.map((c: Json) => c.type)).toEqual(['text', 'image']);
        expect(items[0].text).toContain('Heading /mcp-shot');
        expect(items[1].mimeType).toBe('image/png');
        expect(Buffer.from(items[1].data, 'base64').subarray(0, 8)).toEqual(
          Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
        );
        expect((await call('search', { query: 'coffee athens', limit: 2 })).web).toHaveLength(2);
        const maps = await call('maps_search', { q: 'coffee athens', ll: '@37.98,23.72,14z' });
        expect(maps.places.length).toBeGreaterThan(0);
        const retail = await call('extract', { type: 'retail', url: `https://www.amazon.com/dp/${ASIN}` });
        expect(retail.record.asin).toBe(ASIN);
        const place = await call('extract', {
          type: 'place',
          url: `https://www.google.com/maps/place/?q=place_id:${maps.places[0].placeId}`,
        });
        expect(place.record.mp_place_id).toBe(maps.places[0].placeId);
        const batch = await call('batch_scrape', { urls: [`${site.url}/mcp-b1`], waitSeconds: 60 });
        expect(batch).toMatchObject({ status: 'completed', completed: 1, total: 1 });
        expect((await call('batch_status', { id: batch.id })).status).toBe('completed');
      } finally {
        await client.close();
      }
    }, 300_000);

    it('the MCP SDK client: crawl (with progress), crawl_status, crawl_cancel and map on the native crawl', async () => {
      const trap = await startCrawlTrapSite({ delayMs: 5 });
      const slow = await startCrawlTrapSite({ delayMs: 1000 });
      const client = new Client({ name: 'system-e2e-crawl', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${root}/mcp`), {
          requestInit: { headers: { 'x-api-key': API_KEY } },
        }),
      );
      try {
        const call = async (name: string, args: Record<string, unknown>, onprogress?: (p: Json) => void) => {
          const res = await client.callTool({ name, arguments: args }, undefined, {
            timeout: 180_000,
            ...(onprogress ? { onprogress } : {}),
          });
          expect({ name, isError: res.isError ?? false }).toEqual({ name, isError: false });
          return { structured: res.structuredContent as Json, text: (res.content as Json)[0].text as string };
        };
        const progress: Json[] = [];
        const crawled = await call(
          'crawl',
          { url: `${trap.url}/`, limit: 100, maxDiscoveryDepth: CRAWL_DEPTH, waitSeconds: 150 },
          (p) => progress.push(p),
        );
        expect(crawled.structured).toMatchObject({ status: 'completed' });
        expect(crawled.structured.completed).toBe(crawled.structured.total);
        expect(crawled.structured.id).toMatch(/^[0-9a-f]{32}$/);
        expect(crawled.text).toContain('# About');
        expect(progress.at(-1)).toMatchObject({ message: 'completed', progress: crawled.structured.total });
        const read = await call('crawl_status', { id: crawled.structured.id });
        const titles = [...read.structured.data];
        let next = read.structured.next;
        while (next) {
          const page = await call('crawl_status', { id: crawled.structured.id, ...next });
          titles.push(...page.structured.data);
          next = page.structured.next;
        }
        expect(titles.map((d: Json) => d.metadata.title).sort()).toEqual(CRAWL_TITLES);

        const started = await call('crawl', { url: `${slow.url}/`, sitemap: 'skip' });
        expect(started.structured.status).toBe('scraping');
        expect((await call('crawl_cancel', { id: started.structured.id })).structured.status).toBe('cancelled');
        expect((await call('crawl_status', { id: started.structured.id })).structured.status).toBe('cancelled');

        const mapped = await call('map', { url: `${trap.url}/` });
        const urls = mapped.structured.links.map((l: Json) => l.url);
        for (const p of [...trap.sitemapPages, ...trap.linkOnlyPages]) expect(urls).toContain(`${trap.url}${p}`);
        expect(mapped.text).toContain(`[About](${trap.url}/about)`);
      } finally {
        await client.close();
        await trap.close();
        await slow.close();
      }
    }, 300_000);

    it("v2 getQueueStatus, getConcurrency, getCreditUsage and v1's queue status: the key's own jobs and requests", async () => {
      const fc = firecrawl(KEY_QUEUE);
      const idle = {
        success: true,
        jobsInQueue: 0,
        activeJobsInQueue: 0,
        waitingJobsInQueue: 0,
        maxConcurrency: 20,
        mostRecentSuccess: null,
      };
      expect(await fc.getQueueStatus()).toEqual(idle);
      expect(await fc.getConcurrency()).toEqual({ concurrency: 0, maxConcurrency: 20 });
      // A scrape held open by the site is a request in flight (the key's other requests: key B's are its own).
      const scraping = fc.scrape(`${site.url}/hold/sync`, { formats: ['markdown'], timeout: 60_000 });
      try {
        await eventually(async () => (await fc.getConcurrency()).concurrency === 1, 30_000, 100);
        // Released only once the site holds its request (the gateway counts the request before it gets there).
        await eventually(() => siteHits.get('/hold/sync') === 1, 30_000, 50);
        expect(await fc.getConcurrency()).toEqual({ concurrency: 1, maxConcurrency: 20 });
        expect(await firecrawl(KEY_B).getConcurrency()).toEqual({ concurrency: 0, maxConcurrency: 20 });
      } finally {
        releaseHeld();
      }
      expect((await scraping).markdown).toContain('Held /hold/sync');
      // Its slot is freed when the response is done (a moment after the client has read it).
      await eventually(async () => (await fc.getConcurrency()).concurrency === 0, 30_000, 50);
      // A batch page held open is a job running; the page after it one waiting or done.
      const started = Date.now();
      try {
        const batch = await fc.startBatchScrape([`${site.url}/hold/batch`, `${site.url}/queue-page`], {
          options: { formats: ['markdown'] },
        });
        // The held page's job is running once the site has its request (it stays running until released).
        await eventually(() => siteHits.get('/hold/batch') === 1, 30_000, 50);
        const busy = await eventually(
          async () => {
            const q = await fc.getQueueStatus();
            return q.activeJobsInQueue >= 1 ? q : undefined;
          },
          30_000,
          100,
        );
        expect(busy.jobsInQueue).toBe(busy.activeJobsInQueue + busy.waitingJobsInQueue);
        expect(busy.jobsInQueue).toBeGreaterThanOrEqual(1);
        expect(busy.jobsInQueue).toBeLessThanOrEqual(2);
        expect(busy.maxConcurrency).toBe(20);
        expect(busy.mostRecentSuccess === null || Date.parse(busy.mostRecentSuccess) >= started - 1_000).toBe(true);
        releaseHeld();
        await eventually(async () => (await fc.getBatchScrapeStatus(batch.id)).status === 'completed', 60_000, 200);
        const done = await eventually(
          async () => {
            const q = await fc.getQueueStatus();
            return q.jobsInQueue === 0 ? q : undefined;
          },
          30_000,
          100,
        );
        expect(done).toMatchObject({ activeJobsInQueue: 0, waitingJobsInQueue: 0 });
        expect(Date.parse(done.mostRecentSuccess as string)).toBeGreaterThanOrEqual(started - 1_000);
        const v1Answer = await fetch(`${root}/v1/team/queue-status`, {
          headers: { authorization: `Bearer ${KEY_QUEUE}` },
        });
        expect((await v1Answer.json()) as Json).toEqual(done);
        // The native route they read, in the envelope.
        const native = await fetch(`${stack.baseUrl}/usage/queue`, { headers: { 'x-api-key': KEY_QUEUE } });
        expect(((await native.json()) as Json).data).toEqual({
          jobs: { outstanding: 0, running: 0, waiting: 0, max: 20_000, lastSuccessAt: done.mostRecentSuccess },
          requests: { inFlight: 0, max: 20 },
        });
      } finally {
        releaseHeld();
      }
      // Credits are not metered: no cap, over the calendar month (UTC) of the call.
      const monthOf = (at: Date) => ({
        remainingCredits: 99_999_999,
        planCredits: 99_999_999,
        billingPeriodStart: new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1)).toISOString(),
        billingPeriodEnd: new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1) - 1).toISOString(),
      });
      const before = new Date();
      const credits = await fc.getCreditUsage();
      expect([monthOf(before), monthOf(new Date())]).toContainEqual(credits);
      const historical = await fetch(`${root}/v2/team/credit-usage/historical`, {
        headers: { authorization: `Bearer ${KEY_QUEUE}` },
      });
      expect(historical.status).toBe(404);
      expect(await historical.json()).toMatchObject({ success: false, error: expect.stringContaining('no credits') });
    }, 180_000);

    it('firecrawl-mcp 3.26.0 over stdio with FIRECRAWL_API_URL: scrape, search and credit usage tools', async () => {
      const client = new Client({ name: 'system-e2e-stdio', version: '1.0.0' });
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [resolve(WORKSPACE_ROOT, 'node_modules/firecrawl-mcp/dist/index.js')],
          env: { PATH: process.env.PATH ?? '', FIRECRAWL_API_URL: root, FIRECRAWL_API_KEY: API_KEY },
          stderr: 'pipe',
        }),
      );
      try {
        const scraped = await client.callTool(
          { name: 'firecrawl_scrape', arguments: { url: `${site.url}/fc-mcp`, formats: ['markdown'] } },
          undefined,
          { timeout: 120_000 },
        );
        expect(scraped.isError ?? false).toBe(false);
        expect(JSON.stringify(scraped.content)).toContain('Heading /fc-mcp');
        const found = await client.callTool(
          { name: 'firecrawl_search', arguments: { query: 'coffee athens', limit: 2 } },
          undefined,
          { timeout: 120_000 },
        );
        expect(found.isError ?? false).toBe(false);
        expect(JSON.stringify(found.content)).toMatch(/https?:\/\//);
        // Registered by every firecrawl-mcp server: answered (no cap; ADR 0041), not a 404.
        const credits = await client.callTool({ name: 'firecrawl_credit_usage', arguments: {} }, undefined, {
          timeout: 60_000,
        });
        expect(credits.isError ?? false).toBe(false);
        expect(JSON.stringify(credits.structuredContent ?? credits.content)).toContain('99999999');
      } finally {
        await client.close();
      }
    }, 180_000);

    it('firecrawl-mcp 3.26.0: firecrawl_map, firecrawl_crawl and firecrawl_check_crawl_status', async () => {
      const trap = await startCrawlTrapSite({ delayMs: 5 });
      const client = new Client({ name: 'system-e2e-stdio-crawl', version: '1.0.0' });
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [resolve(WORKSPACE_ROOT, 'node_modules/firecrawl-mcp/dist/index.js')],
          env: { PATH: process.env.PATH ?? '', FIRECRAWL_API_URL: root, FIRECRAWL_API_KEY: API_KEY },
          stderr: 'pipe',
        }),
      );
      try {
        const tool = async (name: string, args: Record<string, unknown>): Promise<Json> => {
          const res = await client.callTool({ name, arguments: args }, undefined, { timeout: 180_000 });
          expect({ name, isError: res.isError ?? false, content: res.isError ? res.content : null }).toEqual({
            name,
            isError: false,
            content: null,
          });
          return res.structuredContent ?? JSON.parse((res.content as Json)[0].text);
        };
        const mapped = await tool('firecrawl_map', { url: `${trap.url}/`, limit: 100 });
        const urls = (mapped.links as Json[]).map((l) => (typeof l === 'string' ? l : l.url));
        for (const p of trap.sitemapPages) expect(urls).toContain(`${trap.url}${p}`);
        const crawled = await tool('firecrawl_crawl', {
          url: `${trap.url}/`,
          limit: 100,
          maxDiscoveryDepth: CRAWL_DEPTH,
          maxConcurrency: CRAWL_CONCURRENCY,
        });
        expect(crawled.status).toBe('completed');
        expect((crawled.data as Json[]).map((d) => d.metadata.title).sort()).toEqual(CRAWL_TITLES);
        const checked = await tool('firecrawl_check_crawl_status', { id: crawled.id });
        expect(checked).toMatchObject({ id: crawled.id, status: 'completed', total: crawled.total });
      } finally {
        await client.close();
        await trap.close();
      }
    }, 240_000);
  });

  describe('tenancy through the compatible routes', () => {
    it("key B gets 404 for key A's batch id (v2, v1 and the v1 crawl path)", async () => {
      const started = await firecrawl().startBatchScrape([`${site.url}/tenant-a`]);
      const err = await firecrawl(KEY_B)
        .getBatchScrapeStatus(started.id)
        .catch((e: unknown) => e);
      expect((err as SdkError).status).toBe(404);
      for (const path of [
        `/v2/batch/scrape/${started.id}`,
        `/v1/batch/scrape/${started.id}`,
        `/v1/crawl/${started.id}`,
      ]) {
        const res = await fetch(`${root}${path}`, { headers: { authorization: `Bearer ${KEY_B}` } });
        expect({ path, status: res.status }).toEqual({ path, status: 404 });
      }
      await firecrawl().batchScrape([`${site.url}/tenant-a-2`], { pollInterval: 1, timeout: 120 });
    }, 150_000);

    it("key A's cached scrape never answers key B", async () => {
      const scrape = (key: string) =>
        fetch(`${root}/v2/scrape`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ url: `${site.url}/cached`, maxAge: 600_000 }),
        });
      expect((await scrape(API_KEY)).headers.get('x-trawl-cache')).toBe('miss');
      expect((await scrape(API_KEY)).headers.get('x-trawl-cache')).toBe('hit');
      const b = await scrape(KEY_B);
      expect(b.status).toBe(200);
      expect(b.headers.get('x-trawl-cache')).toBe('miss');
      expect(siteHits.get('/cached')).toBe(2);
    }, 60_000);
  });

  describe('a batch whose extractor is gone', () => {
    // The SDK's own `timeout` (120 s) bounds the wait: without a final status it throws JobTimeoutError.
    it('the SDK poller still sees a final status, its tasks never having run', async () => {
      await stack.services.get('extractor-scrape')?.stop();
      const job = await firecrawl().batchScrape([`${site.url}/gone-1`, `${site.url}/gone-2`], {
        pollInterval: 1,
        timeout: 120,
      });
      expect(job.status).toBe('failed');
      expect(job.completed).toBe(0);
      expect(job.total).toBe(2);
    }, 150_000);
  });
});
