import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { NatsConnection } from '@nats-io/nats-core';
import { Redis } from 'ioredis';
import { loadEnv, GatewayEnv } from '@trawl/config';
import { SUBJECTS, type ScrapePageRequestDto, type ScrapeResult } from '@trawl/contracts';
import { connectNats } from '@trawl/messaging';
import { serveSubject, startNats, startRedis, type TestServer } from '@trawl/testing';
import { createGatewayApp } from '../src/gateway-app.factory.js';

const KEY = 'cache-key-a';
const BASE = '/api/openapi/v1';

/**
 * Issue 19, Medium 9 (ADR 0021): the result cache keeps only what a caller or the operator asked to keep, and nothing
 * of a request with credentials unless its caller says `storeInCache: true`. The gateway in process with its cache on
 * a real Redis; stand-in extractors on the real subjects count what reaches them; the cache's keys are read back.
 */
describe('gateway: the result cache keeps only what was asked for (real cache Redis and NATS)', () => {
  let nats: TestServer;
  let cacheRedis: TestServer;
  let cache: Redis;
  let nc: NatsConnection;
  let app: NestFastifyApplication;
  let base = '';
  /** Requests that reached an extractor, by URL or query. */
  const asked = new Map<string, number>();
  const count = (what: string) => asked.get(what) ?? 0;

  beforeAll(async () => {
    nats = await startNats();
    cacheRedis = await startRedis({ persist: false });
    cache = new Redis(cacheRedis.url);
    nc = await connectNats([nats.url], 'cache-stand-ins');
    serveSubject(nc, SUBJECTS.scrapePage, (data) => {
      const { url } = data as ScrapePageRequestDto;
      asked.set(url, count(url) + 1);
      const result: ScrapeResult = {
        sourceURL: url,
        taskId: 't',
        edgeId: 'e',
        status: 200,
        rawStatus: 200,
        markdown: `# ${url} ${count(url)}`,
        metadata: { title: url, url, engine: 'http', contentType: 'text/html' },
      };
      return result;
    });
    for (const subject of [SUBJECTS.searchWeb, SUBJECTS.searchMaps]) {
      serveSubject(nc, subject, (data) => {
        const { q } = data as { q: string };
        asked.set(`${subject}:${q}`, count(`${subject}:${q}`) + 1);
        return { searchParameters: { q }, organicResults: [], n: count(`${subject}:${q}`) };
      });
    }
    await nc.flush();
    const env = loadEnv(GatewayEnv, {
      NATS_URL: nats.url,
      API_KEYS: KEY,
      CACHE_REDIS_URL: cacheRedis.url,
      // The operator asks for maps results to be kept a minute; searches keep the default (0: nothing kept).
      CACHE_MAX_AGE_MS_MAPS: '60000',
    });
    app = await createGatewayApp(env, { logger: false, swaggerUi: false });
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = await app.getUrl();
  });

  afterAll(async () => {
    await app?.close();
    cache?.disconnect();
    await nc?.close();
    await nats?.stop();
    await cacheRedis?.stop();
  });

  const post = async (path: string, payload: unknown) => {
    const res = await fetch(`${base}${BASE}${path}`, {
      method: 'POST',
      body: JSON.stringify(payload),
      headers: { 'content-type': 'application/json', 'x-api-key': KEY },
    });
    return { status: res.status, cache: res.headers.get('x-trawl-cache'), body: (await res.json()) as never };
  };
  /** How many results the cache holds. */
  const kept = async () => (await cache.keys('trawl:cache:*')).length;

  it('keeps nothing of a call without maxAge (no default configured), nor of maxAge 0', async () => {
    const url = 'http://127.0.0.1:9/plain';
    expect((await post('/scrape', { url })).status).toBe(200);
    expect((await post('/scrape', { url, maxAge: 0 })).status).toBe(200);
    expect((await post('/extract/search', { q: 'unasked' })).status).toBe(200);
    expect(await kept()).toBe(0);
    // So a later call that accepts a cached result still asks the extractor.
    expect((await post('/scrape', { url, maxAge: 60_000 })).cache).toBe('miss');
    expect(count(url)).toBe(3);
  });

  it('keeps and answers what the caller asked to keep (maxAge above 0, or storeInCache: true)', async () => {
    const before = await kept();
    await post('/extract/search', { q: 'asked', maxAge: 60_000 });
    const second = await post('/extract/search', { q: 'asked', maxAge: 60_000 });
    expect(second.cache).toBe('hit');
    expect(count(`${SUBJECTS.searchWeb}:asked`)).toBe(1);
    // A refresh that keeps its fresh result for later calls.
    await post('/extract/search', { q: 'refreshed', maxAge: 0, storeInCache: true });
    expect((await post('/extract/search', { q: 'refreshed', maxAge: 60_000 })).cache).toBe('hit');
    expect(count(`${SUBJECTS.searchWeb}:refreshed`)).toBe(1);
    // storeInCache: false reads (maxAge) but never keeps.
    await post('/extract/search', { q: 'private', maxAge: 60_000, storeInCache: false });
    await post('/extract/search', { q: 'private', maxAge: 60_000 });
    expect(count(`${SUBJECTS.searchWeb}:private`)).toBe(2);
    expect(await kept()).toBe(before + 3);
  });

  it("keeps what the operator asked to keep (the operation's configured maxAge) when the call gives none", async () => {
    await post('/extract/search/maps', { q: 'by default', ll: '@40.7,-74.0,14z' });
    expect((await post('/extract/search/maps', { q: 'by default', ll: '@40.7,-74.0,14z' })).cache).toBe('hit');
    expect(count(`${SUBJECTS.searchMaps}:by default`)).toBe(1);
  });

  it('never keeps or answers from the cache a scrape with credentials, even with maxAge, unless storeInCache: true', async () => {
    const before = await kept();
    const url = 'http://127.0.0.1:9/account';
    for (const headers of [{ Cookie: 'sid=secret' }, { Authorization: 'Bearer secret' }]) {
      const first = await post('/scrape', { url, headers, maxAge: 60_000 });
      const second = await post('/scrape', { url, headers, maxAge: 60_000 });
      expect([first.status, second.status]).toEqual([200, 200]);
      expect(second.cache).toBe('miss');
    }
    expect(count(url)).toBe(4);
    // A user and password in the URL are credentials too.
    const withUser = 'http://user:pw@127.0.0.1:9/account';
    await post('/scrape', { url: withUser, maxAge: 60_000 });
    await post('/scrape', { url: withUser, maxAge: 60_000 });
    expect(count(withUser)).toBe(2);
    expect(await kept()).toBe(before);
    // The caller says so: kept and answered like any other.
    const mine = { url, headers: { Cookie: 'sid=mine' }, maxAge: 60_000, storeInCache: true };
    await post('/scrape', mine);
    expect((await post('/scrape', mine)).cache).toBe('hit');
    expect(count(url)).toBe(5);
    expect(await kept()).toBe(before + 1);
  });

  it('refuses a storeInCache that is not a boolean (400 VALIDATION_FAILED naming it)', async () => {
    const res = await post('/extract/search', { q: 'x', storeInCache: 'yes' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ data: { error: 'VALIDATION_FAILED', field: 'storeInCache' } });
  });
});
