import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startBuiltSimulator, type RunningSimulator } from '@trawl/testing';
import { callApi, startStack, type Stack } from './support/stack.js';

const QUERIES = ['coffee athens', 'museum of modern art', 'bike repair berlin'];
const ASINS = ['B0DR8G428S', 'B09V366BDY', 'B07G2L3JMM'];

/**
 * Issue 3, "must show" 2: with every extractor reading the upstream simulator, each synchronous endpoint and each
 * /extract type returns the spec's fields, populated, for three different queries. Services run as processes.
 */
describe('search, maps and retail through the whole stack on the upstream simulator', () => {
  let simulator: RunningSimulator;
  let stack: Stack;

  beforeAll(async () => {
    simulator = await startBuiltSimulator();
    const upstream = simulator.url;
    stack = await startStack(['gateway', 'extractor-search', 'extractor-maps', 'extractor-retail'], {
      SEARCH_BASE_URL: upstream,
      MAPS_BASE_URL: upstream,
      RETAIL_BASE_URL: upstream,
      SSRF_ALLOW_HOSTS: '127.0.0.1',
    });
  });

  afterAll(async () => {
    await stack?.stop();
    await simulator?.stop();
  });

  it.each(QUERIES)('POST /extract/search returns populated results for "%s"', async (q) => {
    const res = await callApi(stack, 'POST', '/extract/search', { q, num: 20, hl: 'en', gl: 'us' });
    expect(res.status).toBe(200);
    const data = res.body.data;
    expect(data.location.htmlLang).toBe('en');
    expect(data.results).toHaveLength(20);
    data.results.forEach((r: Record<string, unknown>, i: number) => {
      expect(r.realPosition).toBe(i + 1);
      for (const field of ['title', 'link', 'displayLink', 'domain', 'snippet', 'source']) {
        expect(typeof r[field]).toBe('string');
        expect((r[field] as string).length).toBeGreaterThan(0);
      }
      expect(r.link).toMatch(/^https?:\/\//);
      expect(Array.isArray(r.snippetHighlightedWords)).toBe(true);
      expect(r.sitelinks).toEqual(expect.objectContaining({ inline: expect.any(Array), table: expect.any(Array) }));
    });
    expect(data.relatedSearches.length).toBeGreaterThan(0);
    expect(data.peopleAlsoAsk.length).toBeGreaterThan(0);
    expect(data.peopleAlsoAsk[0].question.length).toBeGreaterThan(0);
  });

  it.each(QUERIES)('POST /extract/search/maps returns populated places and task fields for "%s"', async (q) => {
    const res = await callApi(stack, 'POST', '/extract/search/maps', { q, ll: '@37.98,23.72,14z', num: 25 });
    expect(res.status).toBe(200);
    const d = res.body.data;
    expect(d).toMatchObject({ status: 'completed', stacktrace: null, totalResults: 25 });
    expect(typeof d.taskId).toBe('string');
    expect(new Date(d.finishedOn).toISOString()).toBe(d.finishedOn);
    expect(d.data.searchParameters).toMatchObject({ q, hl: 'en' });
    expect(d.data.search_metadata.created_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect(d.data.organicResults).toHaveLength(25);
    for (const p of d.data.organicResults) {
      expect(p.name.length).toBeGreaterThan(0);
      expect(p.place_id.length).toBeGreaterThan(0);
      expect(p.cid).toMatch(/^\d+$/);
      expect(p.address.length).toBeGreaterThan(0);
      expect(typeof p.latitude).toBe('number');
      expect(typeof p.longitude).toBe('number');
      expect(p.mp_category.length).toBeGreaterThan(0);
      expect(p.mp_maps_url).toMatch(/^https?:\/\//);
      expect(Array.isArray(JSON.parse(p.about))).toBe(true);
    }
  });

  it.each(QUERIES)('POST /extract type mp-maps returns the place record of a place found for "%s"', async (q) => {
    const search = await callApi(stack, 'POST', '/extract/search/maps', { q, num: 3 });
    const place = search.body.data.data.organicResults[0];
    const url = `https://www.google.com/maps/place/?q=place_id:${place.place_id}`;
    const res = await callApi(stack, 'POST', '/extract', { url, type: 'mp-maps', timeout: 10000 });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ status: 'completed', stacktrace: '', params: { url, type: 'mp-maps' } });
    const record = res.body.data.data;
    expect(record).toMatchObject({ mp_place_id: place.place_id, mp_company_name: place.name });
    for (const field of [
      'mp_address',
      'mp_maps_url',
      'mp_reviews_url',
      'mp_street_address',
      'mp_city',
      'mp_zip_code',
    ]) {
      expect(record[field].length).toBeGreaterThan(0);
    }
    expect(typeof record.latitude).toBe('number');
    expect(typeof record.mp_rating).toBe('number');
    expect(Array.isArray(JSON.parse(record.about))).toBe(true);
  });

  it.each(QUERIES)('POST /extract type mp-search returns the places of a maps search URL for "%s"', async (q) => {
    const url = `https://www.google.com/maps/search/${encodeURIComponent(q)}/@40.71,-74.0,13z`;
    const res = await callApi(stack, 'POST', '/extract', { url, type: 'mp-search' });
    expect(res.status).toBe(200);
    expect(res.body.data.data.organicResults.length).toBeGreaterThan(0);
    expect(res.body.data.data.organicResults[0].name.length).toBeGreaterThan(0);
  });

  it.each(ASINS)('POST /extract type retail returns a populated product record for %s', async (asin) => {
    const url = `https://www.amazon.com/dp/${asin}`;
    const res = await callApi(stack, 'POST', '/extract', { url, type: 'retail' });
    expect(res.status).toBe(200);
    const r = res.body.data.data;
    expect(r.asin).toBe(asin);
    expect(r.title.length).toBeGreaterThan(0);
    expect(r.price).toEqual(expect.objectContaining({ value: expect.any(Number), currency: expect.any(String) }));
    expect(typeof r.rating).toBe('number');
    expect(r.images.length).toBeGreaterThan(0);
    expect(r.features.length).toBeGreaterThan(0);
    expect(Object.keys(r.specifications).length).toBeGreaterThan(0);
  });

  it('answers a blocked upstream with 503 UPSTREAM_BLOCKED', async () => {
    const res = await callApi(stack, 'POST', '/extract/search', { q: 'captcha please' });
    expect(res.status).toBe(503);
    expect(res.body.data).toMatchObject({ error: 'UPSTREAM_BLOCKED', retryable: true });
  });
});
