import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { NatsConnection } from '@nats-io/nats-core';
import Firecrawl, { FirecrawlAppV1, SdkError } from '@mendable/firecrawl-js';
import { loadEnv, GatewayEnv } from '@trawl/config';
import {
  encodeScrapeHtml,
  SUBJECTS,
  TrawlError,
  type ScrapeResult,
  type TaskRecord,
  type WebSearchResult,
} from '@trawl/contracts';
import { connectNats } from '@trawl/messaging';
import { serveSubject, startNats, type TestServer } from '@trawl/testing';
import { createGatewayApp } from '../src/gateway-app.factory.js';

const KEY = 'fc-key-a';

/**
 * Issue 22: Firecrawl's scrape and search (v2 and v1) at the gateway's root, driven by the real firecrawl-js 4.42.0
 * client, unchanged, against stand-in extractors on real NATS. Asserts what reaches the native subjects (the
 * translation) and what the client reads back (Firecrawl's shapes), including errors and warnings.
 */
describe('Firecrawl API (in-process gateway, real NATS, firecrawl-js client)', () => {
  let nats: TestServer;
  let nc: NatsConnection;
  let app: NestFastifyApplication;
  let base = '';
  const seen: { subject: string; data: Record<string, unknown> }[] = [];
  const tasks = new Map<string, { owner: string; record: TaskRecord }>();
  const scrapeResultOf = (url: string): ScrapeResult => ({
    sourceURL: url,
    taskId: 't',
    edgeId: 'e',
    status: 200,
    rawStatus: 200,
    markdown: `# Batch ${new URL(url).pathname}`,
    html: encodeScrapeHtml('<p>b</p>'),
    metadata: { title: 'Batch page', url, engine: 'http', contentType: 'text/html' },
  });

  beforeAll(async () => {
    nats = await startNats();
    nc = await connectNats([nats.url], 'stand-ins');
    serveSubject(nc, SUBJECTS.scrapePage, (data) => {
      const req = data as { url: string; formats: string[] };
      seen.push({ subject: SUBJECTS.scrapePage, data: data as Record<string, unknown> });
      if (req.url.includes('blocked')) throw new TrawlError('UPSTREAM_BLOCKED', 'the site answered with a captcha');
      if (req.url.includes('slow')) throw new TrawlError('UPSTREAM_TIMEOUT', 'the page did not load in time');
      const result: ScrapeResult = {
        sourceURL: req.url,
        taskId: 'task-1',
        edgeId: 'e',
        status: 200,
        rawStatus: req.url.includes('missing') ? 404 : 200,
        ...(req.formats.includes('markdown') ? { markdown: `# Page ${new URL(req.url).pathname}` } : {}),
        ...(req.formats.includes('html') ? { html: encodeScrapeHtml('<h1>Hé "x"</h1>') } : {}),
        metadata: { title: 'Page title', url: `${req.url}#final`, engine: 'http', contentType: 'text/html' },
      };
      return result;
    });
    serveSubject(nc, SUBJECTS.searchWeb, (data) => {
      seen.push({ subject: SUBJECTS.searchWeb, data: data as Record<string, unknown> });
      const n = (data as { num: number }).num;
      const result: WebSearchResult = {
        knowledgePanel: null,
        location: { htmlLang: 'en' },
        peopleAlsoAsk: [],
        relatedSearches: [],
        results: Array.from({ length: n + 2 }, (_, i) => ({
          date: '',
          displayLink: 'example.com',
          domain: 'example.com',
          favicon: '',
          link: `http://127.0.0.1:9/result-${i + 1}`,
          realPosition: i + 1,
          sitelinks: { inline: [], table: [] },
          snippet: `Snippet ${i + 1}`,
          snippetHighlightedWords: [],
          source: '',
          title: `Result ${i + 1}`,
        })),
      };
      return result;
    });
    // task-service stand-in: a URL batch's tasks complete at once, but a URL with "stuck" never runs.
    serveSubject(nc, SUBJECTS.taskSubmit, (data) => {
      const req = data as { apiKeyId: string; request: { urls: string[]; webhook?: string } };
      seen.push({ subject: SUBJECTS.taskSubmit, data: data as Record<string, unknown> });
      const jobs = req.request.urls.map((url, i) => {
        const id = `scrape_${tasks.size}_${i}`;
        const done = !url.includes('stuck');
        const record: TaskRecord = {
          taskId: id,
          status: done ? 'completed' : 'waiting',
          params: { url },
          data: done ? scrapeResultOf(url) : null,
          progress: 0,
          attemptsMade: 0,
          finishedOn: null,
          processedOn: null,
          stacktrace: [],
        };
        tasks.set(id, { owner: req.apiKeyId, record });
        return { id, name: 'scrape', data: { kind: 'url', url } };
      });
      return { jobs };
    });
    const taskOf = (data: unknown) => {
      const { jobId, apiKeyId } = data as { jobId: string; apiKeyId: string };
      const task = tasks.get(jobId);
      if (!task || task.owner !== apiKeyId) throw new TrawlError('TASK_NOT_FOUND', `task ${jobId} not found`);
      return task;
    };
    serveSubject(nc, SUBJECTS.taskGet, (data) => taskOf(data).record);
    serveSubject(nc, SUBJECTS.taskCancel, (data) => {
      const task = taskOf(data);
      seen.push({ subject: SUBJECTS.taskCancel, data: data as Record<string, unknown> });
      if (task.record.status === 'completed') throw new TrawlError('TASK_FINISHED', 'finished');
      task.record = {
        ...task.record,
        status: 'failed',
        error: { code: 'TASK_CANCELLED', message: 'cancelled', retryable: false },
      };
      return task.record;
    });
    await nc.flush();
    const env = loadEnv(GatewayEnv, {
      NATS_URL: nats.url,
      API_KEYS: `${KEY},fc-key-b`,
      COMPAT_BATCH_DEADLINE_MS: '1500',
    });
    app = await createGatewayApp(env, { logger: false, swaggerUi: false });
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = await app.getUrl();
  });

  afterAll(async () => {
    await app?.close();
    await nc?.close();
    await nats?.stop();
  });

  const client = () => new Firecrawl({ apiKey: KEY, apiUrl: base });
  const lastOf = (subject: string) => seen.filter((s) => s.subject === subject).pop()?.data;

  it('v2 scrape: markdown and html with Firecrawl metadata; Bearer key; headers and waitFor mapped', async () => {
    const doc = await client().scrape('http://127.0.0.1:9/page', {
      formats: ['markdown', 'html'],
      headers: { cookie: 'a=b' },
      waitFor: 100,
    });
    expect(doc.markdown).toBe('# Page /page');
    expect(doc.html).toBe('<h1>Hé "x"</h1>');
    expect(doc.metadata).toMatchObject({
      title: 'Page title',
      sourceURL: 'http://127.0.0.1:9/page',
      url: 'http://127.0.0.1:9/page#final',
      statusCode: 200,
    });
    expect(doc.warning).toBeUndefined();
    expect(lastOf(SUBJECTS.scrapePage)).toMatchObject({
      url: 'http://127.0.0.1:9/page',
      formats: ['markdown', 'html'],
      headers: { cookie: 'a=b' },
      waitFor: 100,
    });
  });

  it('v2 scrape: the page status is metadata.statusCode, the call succeeds', async () => {
    const doc = await client().scrape('http://127.0.0.1:9/missing');
    expect(doc.metadata?.statusCode).toBe(404);
  });

  it('v2 scrape: an option Trawl cannot honour is named in warning, an inert one (origin) is not', async () => {
    const doc = await client().scrape('http://127.0.0.1:9/warned', {
      formats: ['markdown', 'branding', 'links', { type: 'screenshot', fullPage: true }],
      onlyMainContent: false,
      mobile: true,
      blockAds: false,
    });
    expect(doc.markdown).toBe('# Page /warned');
    expect(doc.warning).toContain('format branding');
    expect(doc.warning).not.toContain('blockAds');
    expect(doc.warning).not.toContain('links');
    expect(doc.warning).not.toContain('onlyMainContent');
    expect(doc.warning).not.toContain('origin');
    expect(lastOf(SUBJECTS.scrapePage)).toMatchObject({
      formats: ['markdown', 'links', { type: 'screenshot', fullPage: true }],
      onlyMainContent: false,
      mobile: true,
      blockAds: false,
    });
  });

  it("v2 scrape: a timeout beyond Trawl's range is clamped and said", async () => {
    const res = await fetch(`${base}/v2/scrape`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: 'http://127.0.0.1:9/long', timeout: 300_000 }),
    });
    const body = (await res.json()) as { success: boolean; warning: string };
    expect(res.status).toBe(200);
    expect(body.success).toBe(true);
    expect(body.warning).toContain('timeout 300000');
    expect(lastOf(SUBJECTS.scrapePage)).toMatchObject({ timeout: 120_000 });
  });

  it('v2 scrape errors: Firecrawl shape with a string error and a code, the client throws SdkError', async () => {
    const blocked = await client()
      .scrape('http://127.0.0.1:9/blocked')
      .catch((e: unknown) => e);
    expect(blocked).toBeInstanceOf(SdkError);
    expect((blocked as SdkError).status).toBe(500);
    expect((blocked as SdkError).code).toBe('SCRAPE_ALL_ENGINES_FAILED');
    expect((blocked as SdkError).message).toContain('captcha');

    const timeout = await client()
      .scrape('http://127.0.0.1:9/slow', { autoResume: false })
      .catch((e: unknown) => e);
    expect((timeout as SdkError).status).toBe(408);
    expect((timeout as SdkError).code).toBe('SCRAPE_TIMEOUT');

    const res = await fetch(`${base}/v2/scrape`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: 'http://127.0.0.1:9/x' }),
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({
      success: false,
      error: expect.any(String) as unknown,
      code: 'UNAUTHORIZED',
      details: { field: 'x-api-key' },
    });

    const bad = await fetch(`${base}/v2/scrape`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: '{"url": ',
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ success: false, code: 'BAD_REQUEST', error: expect.any(String) });

    const wrongUrl = await client()
      .scrape('ftp://example.com/')
      .catch((e: unknown) => e);
    expect((wrongUrl as SdkError).status).toBe(400);
  });

  it("an unknown path under /v2 and a wrong method answer in Firecrawl's shape", async () => {
    const unknown = await fetch(`${base}/v2/nothing-here`, { headers: { authorization: `Bearer ${KEY}` } });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ success: false, code: 'NOT_FOUND' });
    const method = await fetch(`${base}/v2/scrape`, { headers: { authorization: `Bearer ${KEY}` } });
    expect(method.status).toBe(405);
    expect(await method.json()).toMatchObject({ success: false, code: 'METHOD_NOT_ALLOWED' });
  });

  it('v2 search: data.web with url, title, description, position; limit, country, location, tbs mapped', async () => {
    const found = await client().search('coffee', {
      limit: 3,
      country: 'DE',
      location: 'Berlin,Germany',
      tbs: 'qdr:w',
    });
    expect(found.web).toHaveLength(3);
    expect(found.web?.[0]).toEqual({
      url: 'http://127.0.0.1:9/result-1',
      title: 'Result 1',
      description: 'Snippet 1',
      position: 1,
    });
    expect(lastOf(SUBJECTS.searchWeb)).toMatchObject({
      q: 'coffee',
      num: 3,
      gl: 'DE',
      location: 'Berlin,Germany',
      tbs: 'qdr:w',
    });
  });

  it('v2 search with scrapeOptions scrapes each result through the native scrape', async () => {
    const before = seen.filter((s) => s.subject === SUBJECTS.scrapePage).length;
    const found = await client().search('tea', { limit: 2, scrapeOptions: { formats: ['markdown'] } });
    expect(found.web).toHaveLength(2);
    const first = found.web?.[0] as { markdown?: string; metadata?: { sourceURL: string } };
    expect(first.markdown).toBe('# Page /result-1');
    expect(first.metadata?.sourceURL).toBe('http://127.0.0.1:9/result-1');
    expect(seen.filter((s) => s.subject === SUBJECTS.scrapePage).length - before).toBe(2);
  });

  it('v2 search: news and images sources are named in warning', async () => {
    const found = await client().search('tea', { sources: ['web', 'news'] });
    expect(found.warning).toContain('sources');
    expect(found.web).toHaveLength(5);
  });

  it('v1 client (bundled): scrapeUrl and search', async () => {
    const v1 = new FirecrawlAppV1({ apiKey: KEY, apiUrl: base });
    const scraped = await v1.scrapeUrl('http://127.0.0.1:9/v1-page', { formats: ['markdown'] });
    expect(scraped).toMatchObject({ success: true, markdown: '# Page /v1-page' });
    const found = await v1.search('coffee', { limit: 2 });
    expect(found.success).toBe(true);
    expect(found.data).toHaveLength(2);
    expect(found.data[0]).toMatchObject({ url: 'http://127.0.0.1:9/result-1', title: 'Result 1' });
    // v1 sends its own defaults (lang en, country us, scrapeOptions.formats []): mapped, nothing scraped.
    expect(lastOf(SUBJECTS.searchWeb)).toMatchObject({ hl: 'en', gl: 'us', num: 2 });
  });

  it('v2 batch scrape to completion: status, completed, total, creditsUsed, expiresAt, documents', async () => {
    const urls = ['http://127.0.0.1:9/b1', 'http://127.0.0.1:9/b2', 'not a url'];
    const job = await client().batchScrape(urls, { options: { formats: ['markdown'] }, pollInterval: 1 });
    expect(job.status).toBe('completed');
    expect(job.total).toBe(2);
    expect(job.completed).toBe(2);
    expect(job.creditsUsed).toBe(2);
    expect(Date.parse(job.expiresAt ?? '')).toBeGreaterThan(Date.now());
    expect(job.data.map((d) => d.markdown)).toEqual(['# Batch /b1', '# Batch /b2']);
    expect(job.data[0]?.html).toBeUndefined();
    expect(job.data[0]?.metadata?.sourceURL).toBe('http://127.0.0.1:9/b1');
    expect(lastOf(SUBJECTS.taskSubmit)).toMatchObject({
      kind: 'url',
      request: { type: 'scrape', urls: ['http://127.0.0.1:9/b1', 'http://127.0.0.1:9/b2'] },
    });
    expect((lastOf(SUBJECTS.taskSubmit)?.request as { webhook?: string }).webhook).toBeUndefined();
  });

  it('v2 batch status pages by next on the same server; the SDK follows it to every document', async () => {
    const urls = Array.from({ length: 130 }, (_, i) => `http://127.0.0.1:9/p${i}`);
    const started = await client().startBatchScrape(urls);
    const first = await fetch(`${base}/v2/batch/scrape/${started.id}`, { headers: { authorization: `Bearer ${KEY}` } });
    const page = (await first.json()) as { data: unknown[]; next?: string; status: string };
    expect(page.data).toHaveLength(100);
    expect(page.next).toBe(`${base}/v2/batch/scrape/${started.id}?skip=100`);
    const all = await client().getBatchScrapeStatus(started.id);
    expect(all.data).toHaveLength(130);
    const last = await fetch(page.next ?? '', { headers: { authorization: `Bearer ${KEY}` } });
    expect(((await last.json()) as { next?: string }).next).toBeUndefined();
  });

  it("another key's batch id answers 404 in Firecrawl's shape", async () => {
    const started = await client().startBatchScrape(['http://127.0.0.1:9/mine']);
    const asB = new Firecrawl({ apiKey: 'fc-key-b', apiUrl: base });
    const err = await asB.getBatchScrapeStatus(started.id).catch((e: unknown) => e);
    expect((err as SdkError).status).toBe(404);
    const res = await fetch(`${base}/v2/batch/scrape/${started.id}`, { headers: { authorization: 'Bearer fc-key-b' } });
    expect(await res.json()).toMatchObject({ success: false, code: 'NOT_FOUND' });
    const cancel = await fetch(`${base}/v2/batch/scrape/${started.id}`, {
      method: 'DELETE',
      headers: { authorization: 'Bearer fc-key-b' },
    });
    expect(cancel.status).toBe(404);
  });

  it('a batch whose tasks never run reaches failed at its deadline, its tasks cancelled; the SDK poller returns', async () => {
    const job = await client().batchScrape(['http://127.0.0.1:9/stuck-1', 'http://127.0.0.1:9/b3'], {
      pollInterval: 1,
    });
    expect(job.status).toBe('failed');
    expect(job.completed).toBe(1);
    expect(job.total).toBe(2);
    expect(seen.some((s) => s.subject === SUBJECTS.taskCancel)).toBe(true);
    // The cancelled page is named by the batch's errors, with its URL.
    const errors = await client().getBatchScrapeErrors(job.id ?? '');
    expect(errors.errors).toEqual([
      { id: expect.any(String) as unknown, url: 'http://127.0.0.1:9/stuck-1', error: 'cancelled' },
    ]);
    expect(errors.robotsBlocked).toEqual([]);
  });

  it('DELETE cancels a batch: cancelled from then on', async () => {
    const started = await client().startBatchScrape(['http://127.0.0.1:9/stuck-2']);
    expect(await client().cancelBatchScrape(started.id)).toBe(true);
    expect((await client().getBatchScrapeStatus(started.id)).status).toBe('cancelled');
  });

  it('v1 client (bundled): batchScrapeUrls polls /v1/crawl/{id} to completion', async () => {
    const v1 = new FirecrawlAppV1({ apiKey: KEY, apiUrl: base });
    const res = await v1.batchScrapeUrls(['http://127.0.0.1:9/v1-b1'], { formats: ['markdown'] });
    expect(res).toMatchObject({ success: true, status: 'completed', completed: 1, total: 1 });
    expect((res as { data: { markdown: string }[] }).data[0]?.markdown).toBe('# Batch /v1-b1');
  });

  it('v1 client (bundled): cancelCrawl of a batch, its DELETE declaring JSON without a body', async () => {
    const v1 = new FirecrawlAppV1({ apiKey: KEY, apiUrl: base });
    const started = await client().startBatchScrape(['http://127.0.0.1:9/stuck-v1']);
    expect(await v1.cancelCrawl(started.id)).toMatchObject({ success: true, status: 'cancelled' });
    expect((await client().getBatchScrapeStatus(started.id)).status).toBe('cancelled');
    // A POST declaring JSON without a body is still refused.
    const res = await fetch(`${base}/v1/batch/scrape`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
  });

  it("v2 and v1 batch webhooks go down as the batch's events in Firecrawl's form, carrying its id; no warning", async () => {
    const webhook = { url: 'http://127.0.0.1:9/hook', headers: { 'x-run': '7' }, metadata: { run: 7 } };
    const v2 = await fetch(`${base}/v2/batch/scrape`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ urls: ['http://127.0.0.1:9/w1'], webhook }),
    });
    const started = (await v2.json()) as { success: boolean; id: string; warning?: string };
    expect(started.success).toBe(true);
    expect(started.warning).toBeUndefined();
    expect(lastOf(SUBJECTS.taskSubmit)).toMatchObject({
      request: {
        webhook: webhook.url,
        webhookOptions: { batchId: started.id, format: 'firecrawl', headers: { 'x-run': '7' }, metadata: { run: 7 } },
      },
    });
    const v1 = await fetch(`${base}/v1/batch/scrape`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ urls: ['http://127.0.0.1:9/w2'], webhook: webhook.url }),
    });
    const v1Started = (await v1.json()) as { id: string; warning?: string };
    expect(v1Started.warning).toBeUndefined();
    expect(lastOf(SUBJECTS.taskSubmit)).toMatchObject({
      request: { webhook: webhook.url, webhookOptions: { batchId: v1Started.id, format: 'firecrawl' } },
    });
  });

  it('the native URL batch still requires its webhook (only a Firecrawl batch goes without)', async () => {
    const res = await fetch(`${base}/api/openapi/v1/extractTask/batch`, {
      method: 'POST',
      headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ urls: ['http://127.0.0.1:9/n'], type: 'scrape' }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ data: { error: 'VALIDATION_FAILED', field: 'webhook' } });
  });
});
