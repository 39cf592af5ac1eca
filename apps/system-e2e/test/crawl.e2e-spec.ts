import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { eventually, startCrawlTrapSite, startLoopbackHttp, type RunningProcess } from '@trawl/testing';
import { API_KEY, callApi, SIGNING_SECRET, startStack, type ApiBody, type Stack } from './support/stack.js';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js';

const OTHER_KEY = 'system-e2e-other-key';
const MAX_DEPTH = 3;
const MAX_CONCURRENCY = 2;
/** How long a crawl waits for its extractors here before it fails. */
const FLEET_MAX_WAIT_MS = 30_000;

/** The titles of the pages a crawl of the trap site must store, each once. */
const EXPECTED_TITLES = [
  'Home',
  'About',
  'Hidden one',
  'Hidden two',
  'Doc 1',
  'Doc 2',
  'Doc 3',
  'Product',
  ...Array.from({ length: MAX_DEPTH }, (_, m) => `Calendar ${m}`),
  ...Array.from({ length: MAX_DEPTH - 1 }, (_, m) => `Calendar ${-(m + 1)}`),
].sort();

/**
 * Issue 23, "must show" 1-3: crawls and maps of a local site full of traps (robots.txt disallowing a folder, sitemaps
 * missing pages, pages reachable only by links, an endless calendar, session ids with a canonical, fragments, a
 * redirect loop, a second host on 127.0.0.2) through the whole stack: gateway, task-service, two extractor-scrape
 * replicas with Chromium, real Redis and NATS.
 */
describe('crawl and map across the fleet (processes, real Redis, NATS and Chromium)', () => {
  let stack: Stack;
  let receiver: WebhookReceiver;
  const scrapers: RunningProcess[] = [];

  beforeAll(async () => {
    stack = await startStack(['gateway', 'task-service', 'extractor-scrape', 'webhook-dispatcher'], {
      // Both loopback hosts pass the SSRF guard: only the crawl's scope keeps it off the second host.
      SSRF_ALLOW_HOSTS: '127.0.0.1,127.0.0.2',
      API_KEYS: `${API_KEY},${OTHER_KEY}`,
      CRAWL_LEASE_MS: '3000',
      CRAWL_IDLE_MS: '50',
      TASK_FLEET_PROBE_INTERVAL_MS: '200',
      TASK_FLEET_MAX_WAIT_MS: String(FLEET_MAX_WAIT_MS),
    });
    receiver = await startWebhookReceiver(SIGNING_SECRET);
    scrapers.push(stack.services.get('extractor-scrape')!);
    scrapers.push(await stack.startService('extractor-scrape', { INSTANCE_ID: 'extractor-scrape-e2e-2' }));
  }, 180_000);

  afterAll(async () => {
    await Promise.all(scrapers.map((p) => p.stop()));
    await stack?.stop();
    await receiver?.close();
  });

  async function startCrawl(site: { url: string }, extra: Record<string, unknown> = {}): Promise<string> {
    const res = await callApi(stack, 'POST', '/crawl', {
      url: `${site.url}/`,
      limit: 100,
      maxDepth: MAX_DEPTH,
      maxConcurrency: MAX_CONCURRENCY,
      ...extra,
    });
    expect(res.status).toBe(200);
    expect(res.body.data.id).toMatch(/^[0-9a-f]{32}$/);
    return res.body.data.id as string;
  }

  async function get(url: string, key = API_KEY): Promise<{ status: number; body: ApiBody }> {
    const res = await fetch(url, { headers: { 'x-api-key': key } });
    return { status: res.status, body: (await res.json()) as ApiBody };
  }

  async function remove(id: string, key = API_KEY): Promise<{ status: number; body: ApiBody }> {
    const res = await fetch(`${stack.baseUrl}/crawl/${id}`, { method: 'DELETE', headers: { 'x-api-key': key } });
    return { status: res.status, body: (await res.json()) as ApiBody };
  }

  /** Waits for the crawl's final state (task-service may be away meanwhile), then reads every page of documents. */
  async function finished(id: string, timeoutMs = 240_000) {
    const first = await eventually(
      async () => {
        const res = await get(`${stack.baseUrl}/crawl/${id}`).catch(() => undefined);
        return res?.status === 200 && res.body.data.status !== 'scraping' ? res.body.data : undefined;
      },
      timeoutMs,
      250,
    );
    const documents = [...first.data];
    let next: string | null = first.next;
    while (next) {
      expect(next.startsWith(`${stack.baseUrl}/crawl/${id}?cursor=`)).toBe(true);
      const page = await get(next);
      expect(page.status).toBe(200);
      documents.push(...page.body.data.data);
      next = page.body.data.next;
    }
    return { ...first, documents };
  }

  it('crawls each real page once, obeys robots.txt, keeps to the host and to maxConcurrency with two extractors', async () => {
    const site = await startCrawlTrapSite({ delayMs: 30 });
    try {
      const id = await startCrawl(site, { webhook: `${receiver.url}/crawl` });
      const crawl = await finished(id);
      expect(crawl.status).toBe('completed');
      // Webhooks, signed: crawl.started, one crawl.page per document, crawl.completed.
      const events = await eventually(() => {
        const mine = receiver.deliveries.filter((d) => d.body?.id === id);
        return mine.some((d) => d.body.event === 'crawl.completed') &&
          mine.filter((d) => d.body.event === 'crawl.page').length >= crawl.documents.length
          ? mine
          : undefined;
      }, 60_000);
      expect(events.every((d) => d.verified)).toBe(true);
      expect(events.filter((d) => d.body.event === 'crawl.started')).toHaveLength(1);
      const pages = events.filter((d) => d.body.event === 'crawl.page');
      expect(pages.map((d) => d.body.data[0].metadata.title).sort()).toEqual(EXPECTED_TITLES);
      expect(new Set(pages.map((d) => d.id)).size).toBe(pages.length);
      expect(events.find((d) => d.body.event === 'crawl.completed')?.body).toMatchObject({
        id,
        status: 'completed',
        documents: EXPECTED_TITLES.length,
      });
      const titles = crawl.documents.map((d: { metadata: { title: string } }) => d.metadata.title).sort();
      expect(titles).toEqual(EXPECTED_TITLES);
      for (const d of crawl.documents) {
        expect(d.metadata.sourceURL.startsWith(`${site.url}/`)).toBe(true);
        expect(typeof d.markdown).toBe('string');
        expect(d.html).toBeUndefined();
      }
      // Nothing disallowed, nothing of the other host, never more than maxConcurrency at once across the fleet.
      expect(site.requests.filter((p) => p.startsWith('/private/'))).toEqual([]);
      expect(site.otherRequests).toEqual([]);
      expect(site.maxInFlight()).toBeLessThanOrEqual(MAX_CONCURRENCY);
      // Both extractor replicas took pages (queue group; 15 pages all to one of two: 1 in 16,000).
      expect(new Set(crawl.documents.map((d: { edgeId: string }) => d.edgeId)).size).toBe(2);
      expect(crawl.completed).toBe(crawl.total);
      // A crawl belongs to its key; cancelling an ended crawl answers it as it is.
      expect((await get(`${stack.baseUrl}/crawl/${id}`, OTHER_KEY)).status).toBe(404);
      expect((await remove(id, OTHER_KEY)).status).toBe(404);
      const cancelled = await remove(id);
      expect(cancelled.status).toBe(200);
      expect(cancelled.body.data).toMatchObject({ id, status: 'completed', next: null, data: [] });
    } finally {
      await site.close();
    }
  }, 300_000);

  it('a cancelled crawl stops its page in flight at the extractor, long before the page’s timeout (ADR 0043)', async () => {
    let heldClosed = false;
    const site = await startLoopbackHttp((req, res) => {
      if (req.url === '/held') {
        // Never answered: the connection's close is the extractor giving the page up.
        res.on('close', () => (heldClosed = true));
        return;
      }
      if (req.url === '/') {
        res.writeHead(200, { 'content-type': 'text/html' }).end('<title>Start</title><a href="/held">held</a>');
        return;
      }
      res.writeHead(404).end();
    });
    try {
      const held = () => site.requests.filter((r) => r.url === '/held').length;
      const id = await startCrawl(site, {
        sitemap: 'skip',
        maxConcurrency: 1,
        scrapeOptions: { timeout: 120_000 },
      });
      await eventually(() => held() === 1, 60_000);
      expect(heldClosed).toBe(false);
      const cancelled = await remove(id);
      expect(cancelled.body.data).toMatchObject({ id, status: 'cancelled' });
      await eventually(() => heldClosed, 60_000);
      // Nothing of the page's is an error of the crawl's: it was given up, not failed.
      const errors = await get(`${stack.baseUrl}/crawl/${id}/errors`);
      expect(errors.body.data).toMatchObject({ errors: [] });
      expect(held()).toBe(1);
    } finally {
      await site.close();
    }
  }, 180_000);

  it('loses nothing and stores nothing twice when task-service and an extractor are SIGKILLed mid-crawl', async () => {
    const site = await startCrawlTrapSite({ delayMs: 200 });
    try {
      const id = await startCrawl(site);
      await eventually(async () => {
        const res = await get(`${stack.baseUrl}/crawl/${id}`);
        return res.body.data.documents >= 3 && res.body.data.status === 'scraping';
      }, 120_000);
      await Promise.all([stack.services.get('task-service')!.stop('SIGKILL'), scrapers[0]!.stop('SIGKILL')]);
      await stack.startService('task-service');
      scrapers[0] = await stack.startService('extractor-scrape');
      const crawl = await finished(id);
      expect(crawl.status).toBe('completed');
      const titles = crawl.documents.map((d: { metadata: { title: string } }) => d.metadata.title).sort();
      expect(titles).toEqual(EXPECTED_TITLES);
      expect(site.requests.filter((p) => p.startsWith('/private/'))).toEqual([]);
      expect(site.otherRequests).toEqual([]);
      expect(site.maxInFlight()).toBeLessThanOrEqual(MAX_CONCURRENCY);
    } finally {
      await site.close();
    }
  }, 360_000);

  it('maps the sitemaps’ pages and those found by links, nothing disallowed or off-host', async () => {
    const site = await startCrawlTrapSite({ delayMs: 5 });
    try {
      const res = await callApi(stack, 'POST', '/map', { url: `${site.url}/` });
      expect(res.status).toBe(200);
      const links: { url: string; title?: string }[] = res.body.data.links;
      const urls = links.map((l) => l.url);
      for (const p of [...site.sitemapPages, ...site.linkOnlyPages]) expect(urls).toContain(`${site.url}${p}`);
      expect(urls.filter((u) => !u.startsWith(`${site.url}/`))).toEqual([]);
      expect(urls.filter((u) => u.includes('/private/'))).toEqual([]);
      expect(new Set(urls).size).toBe(urls.length);
      expect(links.find((l) => l.url === `${site.url}/about`)?.title).toBe('About');
      expect(site.requests.filter((p) => p.startsWith('/private/'))).toEqual([]);
      expect(site.otherRequests).toEqual([]);
      const searched = await callApi(stack, 'POST', '/map', { url: `${site.url}/`, search: 'hidden' });
      expect(searched.body.data.links.map((l: { url: string }) => l.url).sort()).toEqual([
        `${site.url}/hidden/1`,
        `${site.url}/hidden/2`,
      ]);
    } finally {
      await site.close();
    }
  }, 120_000);

  it('a crawl with a prompt where no language model is configured: 400 on prompt saying so, and no crawl', async () => {
    const site = await startCrawlTrapSite();
    try {
      for (const path of ['/crawl', '/crawl/plan']) {
        const res = await callApi(stack, 'POST', path, { url: `${site.url}/`, prompt: 'only the docs' });
        expect(res.status).toBe(400);
        expect(res.body.data).toMatchObject({ error: 'VALIDATION_FAILED', field: 'prompt' });
        expect(res.body.message).toContain('needs a language model, and none is configured');
      }
      // Refused before the site was mapped (ADR 0042: the planner is asked first), and no crawl of it was recorded.
      expect(site.requests).toEqual([]);
      const active = await callApi(stack, 'GET', '/crawl/active');
      expect(active.body.data.crawls.filter((c: { url: string }) => c.url.startsWith(site.url))).toEqual([]);
    } finally {
      await site.close();
    }
  }, 60_000);

  it('a crawl whose extractors are away waits for them, and fails in bounded time if they stay away', async () => {
    const site = await startCrawlTrapSite({ delayMs: 5 });
    try {
      await Promise.all(scrapers.map((p) => p.stop()));
      // Started while no extractor serves: it waits (no page fails), and completes once one is back.
      const waiting = await startCrawl(site, { sitemap: 'skip', maxDepth: 1 });
      await eventually(async () => {
        const res = await get(`${stack.baseUrl}/crawl/${waiting}`);
        return res.body.data.total > 0 && res.body.data.status === 'scraping' && res.body.data.completed === 0;
      }, 30_000);
      scrapers[0] = await stack.startService('extractor-scrape');
      const done = await finished(waiting);
      expect(done.status).toBe('completed');
      expect(done.documents.map((d: { metadata: { title: string } }) => d.metadata.title)).toContain('Home');
      // With no extractor at all, a crawl fails once the fleet wait is over, with the cause.
      await scrapers[0].stop();
      const failing = await startCrawl(site, { sitemap: 'skip' });
      const failed = await finished(failing, FLEET_MAX_WAIT_MS + 60_000);
      expect(failed.status).toBe('failed');
      expect(failed.error.code).toBe('SERVICE_UNAVAILABLE');
      expect(failed.error.message).toContain('extractor-scrape');
    } finally {
      await site.close();
    }
  }, 240_000);
});
