import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startBuiltSimulator, type RunningSimulator } from '@trawl/testing';
import { callApi, SIGNING_SECRET, startStack, type Stack } from './support/stack.js';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js';

const ASIN = 'B0DR8G428S';
/** The walls the 2026 upstream puts up for a client that runs no JavaScript. */
const WALL = /enable-JavaScript wall|JavaScript challenge|consent interstitial/;

/**
 * Issue 12, "must show" 1: against the upstream simulator's 2026 mode (enable-JavaScript wall for plain HTTP, results
 * written by script for a browser, consent interstitial for EU `gl`, Amazon's JavaScript challenge), with the
 * default engine `auto`, every upstream endpoint and both query batches return results: plain HTTP meets the wall,
 * the same URL is rendered by the browser fleet (extractor-scrape over render.page.v1) and parsed by the same
 * parser. With `engine: "http"` each fails with UPSTREAM_BLOCKED whose message names the engine and the wall.
 * Every service is a process; Chromium, Redis and NATS are real.
 */
describe('engines against the 2026 upstream (auto renders in the browser fleet; http names the wall)', () => {
  let simulator: RunningSimulator;
  let receiver: WebhookReceiver;
  let stack: Stack;

  beforeAll(async () => {
    simulator = await startBuiltSimulator({ SIMULATOR_MODE: '2026' });
    receiver = await startWebhookReceiver(SIGNING_SECRET);
    const upstream = simulator.url;
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
        SEARCH_BASE_URL: upstream,
        MAPS_BASE_URL: upstream,
        RETAIL_BASE_URL: upstream,
        SSRF_ALLOW_HOSTS: '127.0.0.1',
        WEBHOOK_RETRY_SCHEDULE: '100ms,100ms,100ms,100ms',
      },
    );
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    await simulator?.stop();
    await receiver?.close();
  });

  const post = (path: string, body: Record<string, unknown>) =>
    callApi(stack, 'POST', path, { timeout: 30_000, ...body });
  /** 200, or the failure's message in the assertion's output. */
  const expectOk = (res: Awaited<ReturnType<typeof post>>) =>
    expect({ status: res.status, message: res.body.message }).toEqual({ status: 200, message: 'success' });

  describe('auto (the default)', () => {
    it('POST /extract/search returns results', async () => {
      const res = await post('/extract/search', { q: 'coffee athens', hl: 'en', gl: 'us' });
      expectOk(res);
      expect(res.body.data.results.length).toBeGreaterThan(0);
      expect(res.body.data.results[0].title.length).toBeGreaterThan(0);
      expect(res.body.data.results[0].link).toMatch(/^https?:\/\//);
    }, 60_000);

    it('POST /extract/search returns results for an EU gl (past the consent interstitial)', async () => {
      const res = await post('/extract/search', { q: 'bakery berlin', hl: 'de', gl: 'de' });
      expectOk(res);
      expect(res.body.data.results.length).toBeGreaterThan(0);
    }, 60_000);

    it('POST /extract/search/maps returns places', async () => {
      const res = await post('/extract/search/maps', { q: 'museum of modern art', ll: '@40.76,-73.97,14z' });
      expectOk(res);
      const places = res.body.data.data.organicResults;
      expect(places.length).toBeGreaterThan(0);
      expect(places[0].name.length).toBeGreaterThan(0);
      expect(places[0].place_id.length).toBeGreaterThan(0);
    }, 60_000);

    it('POST /extract type mp-search and mp-maps return places and a place record', async () => {
      const url = `https://www.google.com/maps/search/${encodeURIComponent('bike repair berlin')}/@52.52,13.40,13z`;
      const search = await post('/extract', { url, type: 'mp-search' });
      expectOk(search);
      const places = search.body.data.data.organicResults;
      expect(places.length).toBeGreaterThan(0);
      const placeUrl = `https://www.google.com/maps/place/?q=place_id:${places[0].place_id}`;
      const place = await post('/extract', { url: placeUrl, type: 'mp-maps' });
      expectOk(place);
      expect(place.body.data.data).toMatchObject({ mp_place_id: places[0].place_id, mp_company_name: places[0].name });
      expect(place.body.data.data.mp_address.length).toBeGreaterThan(0);
    }, 90_000);

    it('POST /extract type retail returns the product record (past the JavaScript challenge)', async () => {
      const res = await post('/extract', { url: `https://www.amazon.com/dp/${ASIN}`, type: 'retail' });
      expectOk(res);
      expect(res.body.data.data.asin).toBe(ASIN);
      expect(res.body.data.data.title.length).toBeGreaterThan(0);
    }, 60_000);

    it('the maps and search batches complete with results (webhook outcomes)', async () => {
      const [maps, search] = await Promise.all([
        post('/extractTask/batch/maps', {
          querys: ['coffee athens', 'park oslo'],
          webhook: `${receiver.url}/maps`,
          num: 10,
        }),
        post('/extractTask/batch/search', { querys: ['tea', 'garden tools'], webhook: `${receiver.url}/search` }),
      ]);
      expect([maps.status, search.status]).toEqual([200, 200]);
      const ids = [maps.body.data[0].id as string, search.body.data[0].id as string];
      const outcomes = await receiver.outcomesOf(ids, 150_000);
      for (const [d] of outcomes) {
        expect(d.body).toMatchObject({ event: 'task.completed', status: 'completed' });
        expect(d.body.data).toMatchObject({ completed: 2, failed: 0 });
      }
      const [mapsOutcome, searchOutcome] = outcomes.map(([d]) => d.body.data.results);
      for (const r of mapsOutcome) expect(r.data.data.organicResults.length).toBeGreaterThan(0);
      for (const r of searchOutcome) expect(r.data.results.length).toBeGreaterThan(0);
    }, 180_000);
  });

  describe('engine "http"', () => {
    const expectWall = (res: Awaited<ReturnType<typeof post>>) => {
      expect(res.status).toBe(503);
      expect(res.body.data).toMatchObject({ error: 'UPSTREAM_BLOCKED', retryable: true });
      expect(res.body.message).toMatch(/^http: /);
      expect(res.body.message).toMatch(WALL);
    };

    it('POST /extract/search fails with UPSTREAM_BLOCKED naming the enable-JavaScript wall', async () => {
      const res = await post('/extract/search', { q: 'coffee athens', engine: 'http' });
      expectWall(res);
      expect(res.body.message).toBe('http: enable-JavaScript wall');
    });

    it('POST /extract/search/maps fails with UPSTREAM_BLOCKED naming the wall', async () => {
      expectWall(await post('/extract/search/maps', { q: 'coffee athens', engine: 'http' }));
    });

    it('POST /extract mp-search, mp-maps and retail fail with UPSTREAM_BLOCKED naming the wall', async () => {
      const mapsUrl = 'https://www.google.com/maps/search/coffee/@37.98,23.72,14z';
      expectWall(await post('/extract', { url: mapsUrl, type: 'mp-search', engine: 'http' }));
      const placeUrl = 'https://www.google.com/maps/place/?q=place_id:ChIJsimulated0001';
      expectWall(await post('/extract', { url: placeUrl, type: 'mp-maps', engine: 'http' }));
      const retail = await post('/extract', {
        url: `https://www.amazon.com/dp/${ASIN}`,
        type: 'retail',
        engine: 'http',
      });
      expectWall(retail);
      expect(retail.body.message).toBe('http: JavaScript challenge');
    });

    it('rejects an unknown engine with VALIDATION_FAILED naming the field', async () => {
      const res = await post('/extract/search', { q: 'tea', engine: 'curl' });
      expect(res.status).toBe(400);
      expect(res.body.data).toMatchObject({ error: 'VALIDATION_FAILED', field: 'engine' });
    });
  });
});
