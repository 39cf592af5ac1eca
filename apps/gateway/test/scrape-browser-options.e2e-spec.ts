import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { NatsConnection } from '@nats-io/nats-core';
import { loadEnv, GatewayEnv } from '@trawl/config';
import { SUBJECTS, type ScrapePageRequestDto, type ScrapeResult } from '@trawl/contracts';
import { connectNats } from '@trawl/messaging';
import { serveSubject, startNats, type TestServer } from '@trawl/testing';
import { createGatewayApp } from '../src/gateway-app.factory.js';

// ADR 0019: the browser options of POST /scrape at the gateway: what is accepted reaches extractor-scrape as given,
// misuse is refused with 400 VALIDATION_FAILED naming the field, and nothing is scraped. (Their effect in a real
// browser: apps/extractor-scrape/test/browser-options.e2e-spec.ts.)
const KEY = 'browser-options-key';
const BASE = '/api/openapi/v1';

describe('gateway: screenshot, actions, location and mobile on POST /scrape', () => {
  let nats: TestServer;
  let nc: NatsConnection;
  let app: NestFastifyApplication;
  let base = '';
  const seen: ScrapePageRequestDto[] = [];

  beforeAll(async () => {
    nats = await startNats();
    nc = await connectNats([nats.url], 'stand-ins');
    serveSubject(nc, SUBJECTS.scrapePage, (data) => {
      const req = data as ScrapePageRequestDto;
      seen.push(req);
      const result: ScrapeResult = {
        sourceURL: req.url,
        taskId: 't',
        edgeId: 'e',
        status: 200,
        rawStatus: 200,
        markdown: '# Hello',
        screenshot: 'data:image/png;base64,iVBORw0KGgo=',
        actions: { screenshots: [], scrapes: [], javascriptReturns: [{ type: 'number', value: 2 }] },
        metadata: { title: 'Hello', url: req.url, engine: 'browser', contentType: 'text/html' },
      };
      return result;
    });
    await nc.flush();
    const env = loadEnv(GatewayEnv, { NATS_URL: nats.url, API_KEYS: KEY });
    app = await createGatewayApp(env, { logger: false, swaggerUi: false });
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = await app.getUrl();
  });

  afterAll(async () => {
    await app?.close();
    await nc?.close();
    await nats?.stop();
  });

  const post = async (payload: Record<string, unknown>) => {
    const res = await fetch(`${base}${BASE}/scrape`, {
      method: 'POST',
      body: JSON.stringify(payload),
      headers: { 'content-type': 'application/json', 'x-api-key': KEY },
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  it('passes the browser options to extractor-scrape as given, and answers with the screenshot and actions', async () => {
    const body = {
      url: 'http://127.0.0.1:9/ok',
      formats: ['markdown', { type: 'screenshot', fullPage: true, quality: 80, viewport: { width: 800, height: 600 } }],
      actions: [
        { type: 'wait', milliseconds: 100 },
        { type: 'wait', selector: '#x' },
        { type: 'click', selector: '#more', all: true },
        { type: 'write', text: 'hi' },
        { type: 'press', key: 'Enter' },
        { type: 'scroll', direction: 'up' },
        { type: 'screenshot', fullPage: true },
        { type: 'scrape' },
        { type: 'executeJavascript', script: 'return 1 + 1' },
      ],
      location: { country: 'DE', languages: ['de-DE'] },
      mobile: true,
      engine: 'auto',
    };
    const res = await post(body);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      data: { screenshot: 'data:image/png;base64,iVBORw0KGgo=', actions: { javascriptReturns: [{ value: 2 }] } },
    });
    const sent = seen.find((s) => s.url === body.url);
    expect(sent).toMatchObject({
      formats: body.formats,
      actions: body.actions,
      location: body.location,
      mobile: true,
      engine: 'auto',
    });
  });

  it('passes blockAds on as given, on any engine (ADR 0030), and leaves it out when not given', async () => {
    for (const [url, extra] of [
      ['http://127.0.0.1:9/ads-off', { blockAds: false, engine: 'browser' }],
      ['http://127.0.0.1:9/ads-http', { blockAds: true, engine: 'http' }],
      ['http://127.0.0.1:9/ads-default', {}],
    ] as const) {
      const res = await post({ url, ...extra });
      expect(res.status).toBe(200);
      const sent = seen.find((s) => s.url === url);
      if ('blockAds' in extra) expect(sent?.blockAds).toBe(extra.blockAds);
      else expect(sent).not.toHaveProperty('blockAds');
    }
  });

  const refused: [string, Record<string, unknown>, string, RegExp][] = [
    [
      'an unknown action type',
      { actions: [{ type: 'hover', selector: 'a' }] },
      'actions',
      /actions\[0\] has an unknown type "hover"/,
    ],
    [
      'an action on the http engine',
      { engine: 'http', actions: [{ type: 'scrape' }] },
      'actions',
      /need the browser engine \(engine is http\)/,
    ],
    [
      'a screenshot on the http engine',
      { engine: 'http', formats: ['screenshot'] },
      'formats',
      /screenshot needs the browser engine/,
    ],
    [
      'location on the http engine',
      { engine: 'http', location: { country: 'DE' } },
      'location',
      /needs the browser engine/,
    ],
    ['mobile on the http engine', { engine: 'http', mobile: true }, 'mobile', /needs the browser engine/],
    [
      'a wait with both milliseconds and selector',
      { actions: [{ type: 'wait', milliseconds: 1, selector: 'a' }] },
      'actions',
      /exactly one of milliseconds and selector/,
    ],
    ['a click without a selector', { actions: [{ type: 'click' }] }, 'actions', /actions\[0\] \(click\) selector/],
    [
      'more than 50 actions',
      { actions: Array.from({ length: 51 }, () => ({ type: 'scrape' })) },
      'actions',
      /51 actions, more than 50/,
    ],
    [
      'waits over 60 s in all',
      {
        actions: [
          { type: 'wait', milliseconds: 40_000 },
          { type: 'wait', milliseconds: 40_000 },
        ],
      },
      'actions',
      /80000 ms in all/,
    ],
    [
      'a screenshot quality out of range',
      { formats: [{ type: 'screenshot', quality: 101 }] },
      'formats',
      /quality must be an integer 1-100/,
    ],
    [
      'a screenshot viewport too large',
      { formats: [{ type: 'screenshot', viewport: { width: 99_999, height: 10 } }] },
      'formats',
      /viewport must be/,
    ],
    ['two screenshots', { formats: ['screenshot', 'screenshot@fullPage'] }, 'formats', /one screenshot/],
    ['an unknown format', { formats: ['pdf'] }, 'formats', /must contain only/],
    ['a country that is not a code', { location: { country: 'Germany' } }, 'location', /two-letter country code/],
    ['mobile that is not a boolean', { mobile: 'yes' }, 'mobile', /must be a boolean/],
    ['blockAds that is not a boolean', { blockAds: 'no' }, 'blockAds', /must be a boolean/],
    ['a Host header', { headers: { Host: 'internal.example' } }, 'headers', /may not set Host/],
  ];
  for (const [what, extra, field, message] of refused) {
    it(`refuses ${what} with 400 VALIDATION_FAILED naming ${field}, and scrapes nothing`, async () => {
      const url = `http://127.0.0.1:9/refused-${field}`;
      const before = seen.length;
      const res = await post({ url, ...extra });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ data: { error: 'VALIDATION_FAILED', field } });
      expect(String(res.body.message)).toMatch(message);
      expect(seen.length).toBe(before);
    });
  }

  const postTo = async (path: string, payload: Record<string, unknown>) => {
    const res = await fetch(`${base}${BASE}${path}`, {
      method: 'POST',
      body: JSON.stringify(payload),
      headers: { 'content-type': 'application/json', 'x-api-key': KEY },
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  it('POST /extract type scrape takes them, and every other page option of /scrape, as scrapeOptions', async () => {
    const scrapeOptions = {
      formats: ['markdown', 'screenshot'],
      actions: [{ type: 'click', selector: '#more' }],
      location: { country: 'FR' },
      mobile: true,
      blockAds: false,
      onlyMainContent: false,
      includeTags: ['article'],
      excludeTags: ['.ad'],
      waitFor: 10,
      headers: { 'X-Probe': 'p1' },
    };
    const res = await postTo('/extract', { type: 'scrape', url: 'http://127.0.0.1:9/extract-options', scrapeOptions });
    expect(res.status).toBe(200);
    expect(seen.find((s) => s.url === 'http://127.0.0.1:9/extract-options')).toMatchObject(scrapeOptions);
  });

  const refusedExtract: [string, Record<string, unknown>, RegExp][] = [
    ['on another type', { type: 'retail', scrapeOptions: { mobile: true } }, /apply to type scrape only/],
    [
      'an unknown action',
      { type: 'scrape', scrapeOptions: { actions: [{ type: 'hover' }] } },
      /scrapeOptions\.actions\[0\] has an unknown type/,
    ],
    [
      'actions on the http engine',
      { type: 'scrape', engine: 'http', scrapeOptions: { actions: [{ type: 'scrape' }] } },
      /need the browser engine/,
    ],
    [
      'blockAds that is not a boolean',
      { type: 'scrape', scrapeOptions: { blockAds: 'no' } },
      /scrapeOptions\.blockAds must be a boolean/,
    ],
    [
      'an option that is not a page option',
      { type: 'scrape', scrapeOptions: { maxAge: 1000 } },
      /scrapeOptions\.maxAge is not a page option/,
    ],
    [
      'includeTags that is not a list',
      { type: 'scrape', scrapeOptions: { includeTags: 'article' } },
      /scrapeOptions\.includeTags/,
    ],
  ];
  for (const [what, extra, message] of refusedExtract) {
    it(`POST /extract refuses scrapeOptions ${what} with 400 naming scrapeOptions`, async () => {
      const before = seen.length;
      const res = await postTo('/extract', { url: 'http://127.0.0.1:9/extract-refused', ...extra });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ data: { error: 'VALIDATION_FAILED', field: 'scrapeOptions' } });
      expect(String(res.body.message)).toMatch(message);
      expect(seen.length).toBe(before);
    });
  }
});
