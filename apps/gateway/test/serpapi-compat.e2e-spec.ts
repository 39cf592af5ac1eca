import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { NatsConnection } from '@nats-io/nats-core';
import { getJson } from 'serpapi';
import { loadEnv, GatewayEnv } from '@trawl/config';
import {
  SUBJECTS,
  type MapsPlaceItem,
  type MapsSearchResponse,
  type PlaceRecord,
  type WebSearchResult,
} from '@trawl/contracts';
import { connectNats } from '@trawl/messaging';
import { serveSubject, startNats, type TestServer } from '@trawl/testing';
import { createGatewayApp } from '../src/gateway-app.factory.js';
import { TrawlSerpApiAgent } from './support/trawl-serpapi-agent.js';

const KEY = 'serp-key-a';

const place = (i: number): MapsPlaceItem => ({
  name: `Cafe ${i}`,
  place_id: `ChIJplace${i}`,
  cid: `${1000 + i}`,
  country: 'US',
  state: 'NY',
  city: 'New York',
  borough: '',
  postal_code: '10001',
  address: `${i} Main St, New York`,
  street_addr: `${i} Main St`,
  street_addr_supplement: '',
  latitude: 40.7,
  longitude: -74,
  claimed: true,
  rating: 4.5,
  number_of_reviews: 120 + i,
  website: `https://cafe${i}.test/`,
  mp_phone: '+1 212-555-0100',
  mp_category: ['Coffee shop', 'Cafe'],
  mp_description: 'Coffee',
  mp_image: '',
  mp_maps_url: `https://www.google.com/maps/place/Cafe/data=!4m7!3m6!1s0x89c2:0x${(1000 + i).toString(16)}!8m2`,
  mp_reviews_url: '',
  mp_price_range_dollar_sign: '$$',
  mp_orders_urls: [],
  order_online_url: null,
  mp_hours: [{ day: 'Monday', times: ['7 AM–7 PM'] }],
  about: '[]',
});

/**
 * Issue 22: SerpAPI's search API at the root, driven by the real `serpapi` 2.2.1 npm client, unchanged, routed to
 * Trawl through its documented `requestOptions.agent` hook; stand-in extractors on real NATS.
 */
describe('SerpAPI API (in-process gateway, real NATS, serpapi client)', () => {
  let nats: TestServer;
  let nc: NatsConnection;
  let app: NestFastifyApplication;
  let base = '';
  let agent: TrawlSerpApiAgent;
  const seen: { subject: string; data: Record<string, unknown> }[] = [];

  beforeAll(async () => {
    nats = await startNats();
    nc = await connectNats([nats.url], 'stand-ins');
    serveSubject(nc, SUBJECTS.searchWeb, (data) => {
      const req = data as { q: string };
      seen.push({ subject: SUBJECTS.searchWeb, data: data as Record<string, unknown> });
      const empty = req.q === 'nothing at all';
      const result: WebSearchResult = {
        knowledgePanel: empty
          ? null
          : {
              title: 'Coffee',
              type: 'Drink',
              description: 'A brewed drink.',
              source: { name: 'Wikipedia', link: 'https://en.wikipedia.org/wiki/Coffee' },
              attributes: { 'Caffeine content': '95 mg' },
              image: null,
            },
        location: { htmlLang: 'en' },
        peopleAlsoAsk: empty ? [] : [{ question: 'Is coffee good?', answer: 'In moderation.', title: 'T', url: null }],
        relatedSearches: empty ? [] : [{ query: 'coffee beans' }],
        localResults: empty
          ? []
          : [{ position: 1, title: 'Cafe', rating: 4.2, reviews: 10, type: 'Cafe', address: 'A' }],
        results: empty
          ? []
          : [1, 2].map((i) => ({
              date: '',
              displayLink: `https://site${i}.test › coffee`,
              domain: `site${i}.test`,
              favicon: `https://site${i}.test/favicon.ico`,
              link: `https://site${i}.test/coffee`,
              realPosition: i,
              sitelinks: { inline: [{ title: 'About', link: `https://site${i}.test/about`, snippet: '' }], table: [] },
              snippet: `All about coffee ${i}`,
              snippetHighlightedWords: ['coffee'],
              source: '',
              title: `Coffee ${i}`,
            })),
      };
      return result;
    });
    serveSubject(nc, SUBJECTS.searchMaps, (data) => {
      const req = data as { q: string };
      seen.push({ subject: SUBJECTS.searchMaps, data: data as Record<string, unknown> });
      const places = req.q.includes('one place') ? [place(7)] : [place(1), place(2), place(3)];
      const response: MapsSearchResponse = {
        data: {
          organicResults: places,
          searchParameters: {} as MapsSearchResponse['data']['searchParameters'],
          search_metadata: {} as MapsSearchResponse['data']['search_metadata'],
        },
        taskId: 't',
        status: 'completed',
        finishedOn: '',
        processedOn: '',
        stacktrace: null,
        totalResults: places.length,
      };
      return response;
    });
    serveSubject(nc, SUBJECTS.extractPlace, (data) => {
      seen.push({ subject: SUBJECTS.extractPlace, data: data as Record<string, unknown> });
      const record = {
        about: '[]',
        cid: '4242',
        mp_company_name: 'The Place',
        mp_place_id: 'ChIJtheplace',
        mp_address: '1 Place Sq',
        mp_category: ['Museum'],
        mp_hours: [{ day: 'Tuesday', times: ['10 AM–5 PM'] }],
        mp_maps_url: 'https://www.google.com/maps/place/x/data=!1s0xab:0xcd!8m2',
        mp_phone: null,
        mp_rating: 4.8,
        mp_reviews_count: 999,
        mp_website: 'https://place.test/',
        mp_description: '',
        mp_image: null,
        mp_permanently_closed: false,
        mp_price_range_dollar_sign: null,
        latitude: 1,
        longitude: 2,
      } as unknown as PlaceRecord;
      return record;
    });
    await nc.flush();
    const env = loadEnv(GatewayEnv, { NATS_URL: nats.url, API_KEYS: `${KEY},serp-key-b` });
    app = await createGatewayApp(env, { logger: false, swaggerUi: false });
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = await app.getUrl();
    agent = new TrawlSerpApiAgent(new URL(base));
  });

  afterAll(async () => {
    agent?.destroy();
    await app?.close();
    await nc?.close();
    await nats?.stop();
  });

  const lastOf = (subject: string) => seen.filter((s) => s.subject === subject).pop()?.data;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- SerpAPI's JSON as the client returns it
  const serp = (params: Record<string, unknown>): Promise<any> =>
    getJson({ api_key: KEY, ...params, requestOptions: { agent } });

  it("engine=google: SerpAPI sections from Trawl's own parse; q, hl, gl, num, start, location, tbs mapped", async () => {
    const json = await serp({
      engine: 'google',
      q: 'coffee',
      hl: 'en',
      gl: 'us',
      num: 10,
      start: 10,
      location: 'Austin,Texas',
      tbs: 'qdr:w',
    });
    expect(lastOf(SUBJECTS.searchWeb)).toMatchObject({
      q: 'coffee',
      hl: 'en',
      gl: 'us',
      num: 10,
      start: 10,
      location: 'Austin,Texas',
      tbs: 'qdr:w',
    });
    expect(json.search_metadata).toMatchObject({ status: 'Success' });
    expect(json.search_parameters).toMatchObject({ engine: 'google', q: 'coffee' });
    expect(json.search_parameters.api_key).toBeUndefined();
    expect(json.search_information).toMatchObject({ query_displayed: 'coffee' });
    expect(json.organic_results[0]).toEqual({
      position: 11,
      title: 'Coffee 1',
      link: 'https://site1.test/coffee',
      displayed_link: 'https://site1.test › coffee',
      favicon: 'https://site1.test/favicon.ico',
      snippet: 'All about coffee 1',
      snippet_highlighted_words: ['coffee'],
      sitelinks: { inline: [{ title: 'About', link: 'https://site1.test/about' }] },
    });
    expect(json.related_questions[0]).toMatchObject({ question: 'Is coffee good?', snippet: 'In moderation.' });
    expect(json.related_searches[0]).toMatchObject({ query: 'coffee beans' });
    expect(json.knowledge_graph).toMatchObject({ title: 'Coffee', type: 'Drink', caffeine_content: '95 mg' });
    expect(json.local_results.places[0]).toMatchObject({ position: 1, title: 'Cafe', rating: 4.2 });
    expect(json.pagination).toMatchObject({ current: 2 });
    expect(json.serpapi_pagination.next).toContain('/search.json?');
    expect(json.serpapi_pagination.next).toContain('start=20');
    expect(JSON.stringify(json)).not.toContain(KEY);
  });

  it("an empty result is 200 with SerpAPI's message", async () => {
    const json = await serp({ engine: 'google', q: 'nothing at all' });
    expect(json.error).toBe("Google hasn't returned any results for this query.");
    expect(json.search_information.organic_results_state).toBe('Fully empty');
  });

  it('engine=google_maps type=search: local_results with SerpAPI fields', async () => {
    const json = await serp({ engine: 'google_maps', q: 'coffee', ll: '@40.7455096,-74.0083012,14z', type: 'search' });
    expect(lastOf(SUBJECTS.searchMaps)).toMatchObject({ q: 'coffee', ll: '@40.7455096,-74.0083012,14z' });
    expect(json.local_results).toHaveLength(3);
    expect(json.local_results[0]).toMatchObject({
      position: 1,
      title: 'Cafe 1',
      place_id: 'ChIJplace1',
      data_id: '0x89c2:0x3e9',
      gps_coordinates: { latitude: 40.7, longitude: -74 },
      rating: 4.5,
      reviews: 121,
      type: 'Coffee shop',
      address: '1 Main St, New York',
      phone: '+1 212-555-0100',
      website: 'https://cafe1.test/',
      hours: [{ monday: '7 AM–7 PM' }],
    });
  });

  it('engine=google_maps: a search that resolves to one place, and type=place, answer place_results', async () => {
    const one = await serp({ engine: 'google_maps', q: 'one place', type: 'search' });
    expect(one.local_results).toBeUndefined();
    expect(one.place_results).toMatchObject({ title: 'Cafe 7', place_id: 'ChIJplace7' });

    const byId = await serp({ engine: 'google_maps', type: 'place', place_id: 'ChIJtheplace', hl: 'en' });
    expect(lastOf(SUBJECTS.extractPlace)).toMatchObject({
      url: 'https://www.google.com/maps/place/?q=place_id%3AChIJtheplace&hl=en',
    });
    expect(byId.place_results).toMatchObject({
      title: 'The Place',
      place_id: 'ChIJtheplace',
      data_id: '0xab:0xcd',
      rating: 4.8,
      reviews: 999,
      hours: [{ tuesday: '10 AM–5 PM' }],
    });
  });

  it("errors are SerpAPI's {error} with its statuses, and never hold the key", async () => {
    const get = async (path: string) => {
      const res = await fetch(`${base}${path}`);
      return { status: res.status, text: await res.text() };
    };
    const wrong = await get('/search.json?engine=google&q=x&api_key=not-a-key-SECRET');
    expect(wrong.status).toBe(401);
    expect(JSON.parse(wrong.text)).toEqual({ error: expect.stringContaining('Invalid API key') });
    expect(wrong.text).not.toContain('SECRET');
    const noQ = await get(`/search.json?engine=google&api_key=${KEY}`);
    expect(noQ.status).toBe(400);
    expect(JSON.parse(noQ.text)).toEqual({ error: 'Missing query `q` parameter.' });
    const engine = await get(`/search?engine=bing&q=x&api_key=${KEY}`);
    expect(engine.status).toBe(400);
    expect(JSON.parse(engine.text).error).toContain('bing');
    // An unknown route no longer echoes the query (and the key in it).
    const unknown = await get(`/searches/abc?api_key=${KEY}`);
    expect(unknown.status).toBe(404);
    expect(unknown.text).not.toContain(KEY);
    const unknownApi = await get(`/api/openapi/v1/nothing?api_key=${KEY}`);
    expect(unknownApi.status).toBe(404);
    expect(unknownApi.text).not.toContain(KEY);
  });

  it('the client surfaces a SerpAPI error body as it would from serpapi.com', async () => {
    const err = await getJson({ engine: 'google', q: 'x', api_key: 'wrong', requestOptions: { agent } }).catch(
      (e: unknown) => e,
    );
    expect(JSON.parse(String(err))).toEqual({ error: expect.stringContaining('Invalid API key') });
  });

  it('unknown and unsupported parameters are named in warning, not silently dropped', async () => {
    const json = await serp({ engine: 'google', q: 'coffee', safe: 'active', frobnicate: '1' });
    expect(json.warning).toContain('safe');
    expect(json.warning).toContain('frobnicate');
  });
});
