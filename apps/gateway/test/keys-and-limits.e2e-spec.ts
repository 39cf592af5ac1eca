import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { NatsConnection } from '@nats-io/nats-core';
import { loadEnv, GatewayEnv } from '@trawl/config';
import { SUBJECTS, TrawlError, type ScrapeResult } from '@trawl/contracts';
import { ApiKeyStore } from '@trawl/keys';
import { connectNats } from '@trawl/messaging';
import { freePort, serveSubject, startNats, startRedis, type TestServer } from '@trawl/testing';
import { Redis } from 'ioredis';
import { createGatewayApp } from '../src/gateway-app.factory.js';

const SCRAPE = '/api/openapi/v1/scrape';
const BOOTSTRAP_KEY = 'bootstrap-key-1';

interface Res {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- test reads arbitrary JSON
  body: any;
}

/** A promise with its resolver, to hold the stand-in extractor until the test lets it answer. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open = (): void => undefined;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

async function scrape(base: string, key: string, path = 'page', signal?: AbortSignal): Promise<Res> {
  const res = await fetch(`${base}${SCRAPE}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify({ url: `http://127.0.0.1:9/${path}` }),
    signal,
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

/** Retries `attempt` until `done` holds (a bounded wait for an asynchronous effect such as pub/sub or a socket close). */
async function eventually(attempt: () => Promise<Res>, done: (r: Res) => boolean): Promise<Res> {
  let last = await attempt();
  for (let i = 0; i < 100 && !done(last); i++) {
    await new Promise((r) => setTimeout(r, 20));
    last = await attempt();
  }
  return last;
}

function result(url: string): ScrapeResult {
  return {
    sourceURL: url,
    taskId: 't',
    edgeId: 'e',
    status: 200,
    rawStatus: 200,
    markdown: '# ok',
    metadata: { title: 'ok', url, engine: 'http', contentType: 'text/html' },
  };
}

describe('keys and limits (two gateway replicas, one real Redis, real NATS)', () => {
  let redisServer: TestServer;
  let nats: TestServer;
  let nc: NatsConnection;
  let redis: Redis;
  let store: ApiKeyStore;
  let apps: NestFastifyApplication[] = [];
  let a = '';
  let b = '';
  /** Slow requests (path `slow`) wait for this gate; `received` resolves when one reaches the extractor. */
  let slow = gate();
  let received = gate();

  beforeAll(async () => {
    [redisServer, nats] = await Promise.all([startRedis(), startNats()]);
    redis = new Redis(redisServer.url);
    store = new ApiKeyStore(redis);
    nc = await connectNats([nats.url], 'stand-ins');
    serveSubject(nc, SUBJECTS.scrapePage, async (data) => {
      const { url } = data as { url: string };
      if (url.endsWith('/slow')) {
        received.open();
        await slow.promise;
      }
      if (url.endsWith('/blocked')) throw new TrawlError('UPSTREAM_BLOCKED', 'captcha');
      return result(url);
    });
    await nc.flush();
    const env = loadEnv(GatewayEnv, {
      NATS_URL: nats.url,
      REDIS_URL: redisServer.url,
      API_KEYS: BOOTSTRAP_KEY,
      // Long enough that only the store's revocation announcement can explain a revoked key failing at once.
      API_KEY_CACHE_MS: '600000',
    });
    apps = [
      await createGatewayApp(env, { logger: false, swaggerUi: false }),
      await createGatewayApp(env, { logger: false, swaggerUi: false }),
    ];
    for (const app of apps) await app.listen({ port: 0, host: '127.0.0.1' });
    [a, b] = await Promise.all(apps.map((app) => app.getUrl()));
  });

  afterAll(async () => {
    slow.open();
    for (const app of apps) await app.close();
    await nc?.close();
    await redis?.quit();
    await Promise.all([nats?.stop(), redisServer?.stop()]);
  });

  it('accepts a key from the store on both replicas, and a bootstrap key from API_KEYS', async () => {
    const { key } = await store.create({
      name: 'both',
      limits: { rate: { points: 100, durationSec: 60 }, concurrency: 5 },
    });
    expect((await scrape(a, key)).status).toBe(200);
    expect((await scrape(b, key)).status).toBe(200);
    expect((await scrape(a, BOOTSTRAP_KEY)).status).toBe(200);
    expect((await scrape(b, 'trawl_not-a-key')).status).toBe(401);
  });

  it('counts requests to both replicas against one rate limit: over it, 429 RATE_LIMITED with Retry-After', async () => {
    const { key } = await store.create({
      name: 'limited',
      limits: { rate: { points: 3, durationSec: 60 }, concurrency: 10 },
    });
    const first = await scrape(a, key);
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit-limit')).toBe('3');
    expect(first.headers.get('ratelimit-remaining')).toBe('2');
    expect((await scrape(b, key)).status).toBe(200);
    expect((await scrape(a, key)).status).toBe(200);
    for (const base of [b, a]) {
      const over = await scrape(base, key);
      expect(over.status).toBe(429);
      expect(over.body).toMatchObject({ code: 429, errorCode: 429, data: { error: 'RATE_LIMITED', retryable: true } });
      expect(over.body.message).toContain('3/60s');
      const retryAfter = Number(over.headers.get('retry-after'));
      expect(Number.isInteger(retryAfter)).toBe(true);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(over.headers.get('ratelimit-remaining')).toBe('0');
    }
  });

  it('gives 429 to a second concurrent request of a key capped at 1, on the other replica, and frees the slot when the first ends', async () => {
    const { key } = await store.create({
      name: 'single',
      limits: { rate: { points: 100, durationSec: 60 }, concurrency: 1 },
    });
    slow = gate();
    received = gate();
    const first = scrape(a, key, 'slow');
    await received.promise;
    const second = await scrape(b, key);
    expect(second.status).toBe(429);
    expect(second.body).toMatchObject({ data: { error: 'RATE_LIMITED' } });
    expect(second.headers.get('retry-after')).toBe('1');
    slow.open();
    expect((await first).status).toBe(200);
    expect((await scrape(b, key)).status).toBe(200);
  });

  it('releases the concurrency slot when the request fails', async () => {
    const { key } = await store.create({
      name: 'failing',
      limits: { rate: { points: 100, durationSec: 60 }, concurrency: 1 },
    });
    expect((await scrape(a, key, 'blocked')).status).toBe(503);
    expect((await scrape(b, key)).status).toBe(200);
    const invalid = await fetch(`${a}${SCRAPE}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({ url: 'http://127.0.0.1:9/', formats: ['pdf'] }),
    });
    expect(invalid.status).toBe(400);
    expect((await scrape(a, key)).status).toBe(200);
  });

  it('releases the concurrency slot when the client goes away mid-request', async () => {
    const { key } = await store.create({
      name: 'aborting',
      limits: { rate: { points: 100, durationSec: 60 }, concurrency: 1 },
    });
    slow = gate();
    received = gate();
    const abort = new AbortController();
    const first = scrape(a, key, 'slow', abort.signal).catch((e: unknown) => e);
    await received.promise;
    abort.abort();
    expect(await first).toMatchObject({ name: 'AbortError' });
    // The server notices the closed socket asynchronously; the slot must come back without the slow call ending.
    const next = await eventually(
      () => scrape(b, key),
      (r) => r.status === 200,
    );
    expect(next.status).toBe(200);
    slow.open();
  });

  it('refuses a revoked key with 401 on both replicas, although both had it cached', async () => {
    const { key, record } = await store.create({
      name: 'to-revoke',
      limits: { rate: { points: 100, durationSec: 60 }, concurrency: 5 },
    });
    expect((await scrape(a, key)).status).toBe(200);
    expect((await scrape(b, key)).status).toBe(200);
    await store.revoke(record.id);
    for (const base of [a, b]) {
      const res = await eventually(
        () => scrape(base, key),
        (r) => r.status === 401,
      );
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ data: { error: 'UNAUTHORIZED' } });
    }
  });

  it('accepts the rotated key and refuses the old one', async () => {
    const { key, record } = await store.create({
      name: 'to-rotate',
      limits: { rate: { points: 100, durationSec: 60 }, concurrency: 5 },
    });
    expect((await scrape(a, key)).status).toBe(200);
    const rotated = await store.rotate(record.id);
    expect(
      (
        await eventually(
          () => scrape(a, key),
          (r) => r.status === 401,
        )
      ).status,
    ).toBe(401);
    expect((await scrape(a, rotated.key)).status).toBe(200);
  });

  it('is ready with Redis reachable, and not ready (503) while its Redis is not', async () => {
    const ready = await fetch(`${a}/health/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ data: { nats: 'connected', redis: 'ready' } });

    const env = loadEnv(GatewayEnv, {
      NATS_URL: nats.url,
      REDIS_URL: `redis://127.0.0.1:${await freePort()}`,
      API_KEYS: BOOTSTRAP_KEY,
    });
    const orphan = await createGatewayApp(env, { logger: false, swaggerUi: false });
    try {
      await orphan.listen({ port: 0, host: '127.0.0.1' });
      const res = await fetch(`${await orphan.getUrl()}/health/ready`);
      expect(res.status).toBe(503);
      expect(((await res.json()) as { message: string }).message).toContain('Redis');
    } finally {
      await orphan.close();
    }
  });

  it('sends security headers: nosniff, frame deny, no referrer, HSTS', async () => {
    const res = await scrape(a, BOOTSTRAP_KEY);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('strict-transport-security')).toContain('max-age=');
  });
});

describe('limits without Redis (API_KEYS bootstrap, counted per process)', () => {
  let nats: TestServer;
  let nc: NatsConnection;
  let app: NestFastifyApplication;
  let base = '';

  beforeAll(async () => {
    nats = await startNats();
    nc = await connectNats([nats.url], 'stand-ins');
    serveSubject(nc, SUBJECTS.scrapePage, (data) => result((data as { url: string }).url));
    await nc.flush();
    const env = loadEnv(GatewayEnv, { NATS_URL: nats.url, API_KEYS: BOOTSTRAP_KEY, API_KEY_DEFAULT_RATE: '2/60s' });
    app = await createGatewayApp(env, { logger: false, swaggerUi: false });
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = await app.getUrl();
  });

  afterAll(async () => {
    await app?.close();
    await nc?.close();
    await nats?.stop();
  });

  it('applies the default rate limit to a bootstrap key: the third request in the window gets 429 with Retry-After', async () => {
    expect((await scrape(base, BOOTSTRAP_KEY)).status).toBe(200);
    expect((await scrape(base, BOOTSTRAP_KEY)).status).toBe(200);
    const over = await scrape(base, BOOTSTRAP_KEY);
    expect(over.status).toBe(429);
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });
});
