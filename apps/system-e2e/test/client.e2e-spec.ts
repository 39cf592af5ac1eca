import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  TrawlApiError,
  TrawlClient,
  verifyWebhook,
  WebhookVerificationError,
  type WebhookPayload,
} from '@trawl/client';
import {
  eventually,
  startBuiltSimulator,
  startLoopbackHttp,
  type LoopbackServer,
  type RunningSimulator,
} from '@trawl/testing';
import { API_KEY, SIGNING_SECRET, startStack, type Stack } from './support/stack.js';

/**
 * Issue 10, "must show" 2: the typed client (libs/client) against the whole stack, for all nine operations, and its
 * webhook helper verifying the delivered outcomes of the three batch kinds. Extractors read the upstream simulator;
 * pages and the webhook receiver are on loopback.
 */
describe('@trawl/client against the running stack (issue 10, must show 2)', () => {
  let simulator: RunningSimulator;
  let site: LoopbackServer;
  let hooks: LoopbackServer;
  let stack: Stack;
  let trawl: TrawlClient;
  const outcomes: WebhookPayload[] = [];
  const refused: string[] = [];

  beforeAll(async () => {
    simulator = await startBuiltSimulator();
    site = await startLoopbackHttp((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><html><head><title>Client page</title></head><body><h1>Hello client</h1></body></html>');
    });
    // A receiver as a user would write it: verify with the client's helper, answer 2xx only when it holds.
    hooks = await startLoopbackHttp((req, res, body) => {
      try {
        outcomes.push(verifyWebhook(SIGNING_SECRET, req.headers, body));
        res.writeHead(204).end();
      } catch (e) {
        refused.push(e instanceof WebhookVerificationError ? e.message : String(e));
        res.writeHead(400).end();
      }
    });
    stack = await startStack(
      [
        'gateway',
        'task-service',
        'webhook-dispatcher',
        'extractor-scrape',
        'extractor-search',
        'extractor-maps',
        'extractor-retail',
      ],
      {
        SEARCH_BASE_URL: simulator.url,
        MAPS_BASE_URL: simulator.url,
        RETAIL_BASE_URL: simulator.url,
        SSRF_ALLOW_HOSTS: '127.0.0.1',
        TASK_SCRAPE_ENGINE: 'http',
      },
    );
    trawl = new TrawlClient({ baseUrl: stack.baseUrl, apiKey: API_KEY });
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
    await simulator?.stop();
    await Promise.all([site?.close(), hooks?.close()]);
  });

  it('search: a typed WebSearchResult', async () => {
    const result = await trawl.search({ q: 'coffee athens', num: 10, hl: 'en', gl: 'us' });
    expect(result.results).toHaveLength(10);
    expect(result.results[0]?.realPosition).toBe(1);
    expect(result.location.htmlLang).toBe('en');
  });

  it('maps: a typed MapsSearchResponse', async () => {
    const result = await trawl.maps({ q: 'museum of modern art', ll: '@37.98,23.72,14z', num: 5 });
    expect(result.totalResults).toBe(5);
    expect(result.data.organicResults[0]?.name.length).toBeGreaterThan(0);
  });

  it('extract: the record type follows `type` (retail, mp-search)', async () => {
    const product = await trawl.extract({ url: 'https://www.amazon.com/dp/B0DR8G428S', type: 'retail' });
    expect(product.params.type).toBe('retail');
    expect(product.data.asin).toBe('B0DR8G428S');
    expect(typeof product.data.price?.value).toBe('number');
    const places = await trawl.extract({ url: 'https://www.google.com/maps/search/coffee+athens', type: 'mp-search' });
    expect(places.data.organicResults.length).toBeGreaterThan(0);
  });

  it('scrape: a typed ScrapeResult', async () => {
    const page = await trawl.scrape({ url: `${site.url}/p/1`, formats: ['markdown'] });
    expect(page.rawStatus).toBe(200);
    expect(page.markdown).toContain('Hello client');
    expect(page.metadata.title).toBe('Client page');
  });

  it('a failure envelope is a TrawlApiError with code, retryable, requestId and field', async () => {
    const error = await trawl.search({ q: 'coffee', num: 301 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TrawlApiError);
    const e = error as TrawlApiError;
    expect({ status: e.status, code: e.code, retryable: e.retryable, field: e.field }).toEqual({
      status: 400,
      code: 'VALIDATION_FAILED',
      retryable: false,
      field: 'num',
    });
    expect(e.requestId).toMatch(/^[0-9a-f-]{36}$/);
    const missing = await trawl.getTask('no-such-job').catch((x: unknown) => x);
    expect(missing).toMatchObject({ status: 404, code: 'TASK_NOT_FOUND', retryable: false });
  });

  it('the three batch kinds: job ids, lookup, and verified webhook outcomes', async () => {
    const webhook = `${hooks.url}/hook`;
    const urlJobs = await trawl.submitUrlBatch({
      urls: [`${site.url}/p/a`, `${site.url}/p/b`],
      type: 'scrape',
      webhook,
    });
    const [searchJob] = await trawl.submitSearchBatch({ querys: ['coffee', 'tea'], num: 5, webhook });
    const [mapsJob] = await trawl.submitMapsBatch({ querys: ['bike repair berlin'], num: 3, webhook });
    expect(urlJobs.map((j) => j.data.kind)).toEqual(['url', 'url']);
    expect(searchJob?.data.querys).toEqual(['coffee', 'tea']);
    expect(mapsJob?.data.kind).toBe('maps');
    const ids = [...urlJobs.map((j) => j.id), searchJob?.id ?? '', mapsJob?.id ?? ''];

    // Every job's outcome arrives once, verified by the client's helper, as completed.
    await eventually(() => ids.every((id) => outcomes.some((o) => o.taskId === id)), 90_000);
    expect(refused).toEqual([]);
    for (const id of ids) {
      const delivered = outcomes.filter((o) => o.taskId === id);
      expect(delivered.map((o) => [o.event, o.status])).toEqual([['task.completed', 'completed']]);
      const record = await trawl.getTask(id);
      expect(record.status).toBe('completed');
      expect(record.taskId).toBe(id);
    }
    const search = outcomes.find((o) => o.taskId === searchJob?.id);
    expect(search?.data).toMatchObject({ completed: 2, failed: 0 });
  }, 120_000);

  it('idempotencyKey, cancelTask and maxAge: the operations of ADR 0016 through the client', async () => {
    const webhook = `${hooks.url}/hook`;
    const body = { urls: [`${site.url}/p/idem`], type: 'scrape' as const, webhook };
    const first = await trawl.submitUrlBatch(body, { idempotencyKey: 'client-e2e-1' });
    expect(await trawl.submitUrlBatch(body, { idempotencyKey: 'client-e2e-1' })).toEqual(first);
    const id = first[0]?.id ?? '';
    await eventually(() => outcomes.some((o) => o.taskId === id), 60_000);
    expect(outcomes.filter((o) => o.taskId === id)).toHaveLength(1);
    // A finished task cannot be cancelled: a typed 409.
    await expect(trawl.cancelTask(id)).rejects.toMatchObject({ status: 409, code: 'TASK_FINISHED', retryable: false });
    await expect(trawl.cancelTask('no-such-job')).rejects.toMatchObject({ status: 404, code: 'TASK_NOT_FOUND' });
    // maxAge is part of the typed request (without a cache Redis every call asks the upstream).
    const result = await trawl.search({ q: 'coffee athens', num: 10, maxAge: 60_000 });
    expect(result.results).toHaveLength(10);
  }, 90_000);
});
