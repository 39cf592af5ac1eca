import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { NatsConnection } from '@nats-io/nats-core';
import { loadEnv, GatewayEnv } from '@trawl/config';
import { SUBJECTS, type ScrapePageRequestDto, type ScrapeResult } from '@trawl/contracts';
import { connectNats } from '@trawl/messaging';
import { serveSubject, startNats, type TestServer } from '@trawl/testing';
import { createGatewayApp } from '../src/gateway-app.factory.js';

// ADR 0017: the tenant extractor-scrape resets browser tabs by is the key the gateway authenticated. A caller cannot
// name one (the field is refused), so it cannot claim another tenant's tabs.
const KEY_A = 'tenant-key-a';
const KEY_B = 'tenant-key-b';
const BASE = '/api/openapi/v1';

describe('gateway: the scrape tenant comes from the API key, never from the body', () => {
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
        html: 'PGgxPkhlbGxvPC9oMT4=',
        metadata: { title: 'Hello', url: req.url, engine: 'browser', contentType: 'text/html' },
      };
      return result;
    });
    await nc.flush();
    const env = loadEnv(GatewayEnv, { NATS_URL: nats.url, API_KEYS: `${KEY_A},${KEY_B}` });
    app = await createGatewayApp(env, { logger: false, swaggerUi: false });
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = await app.getUrl();
  });

  afterAll(async () => {
    await app?.close();
    await nc?.close();
    await nats?.stop();
  });

  const post = async (path: string, key: string, payload: unknown) => {
    const res = await fetch(`${base}${BASE}${path}`, {
      method: 'POST',
      body: JSON.stringify(payload),
      headers: { 'content-type': 'application/json', 'x-api-key': key },
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  /** The tenant extractor-scrape was told for one POST /scrape of `key`. */
  const tenantOf = async (key: string, url: string) => {
    const res = await post('/scrape', key, { url });
    expect(res.status).toBe(200);
    const sent = seen.find((s) => s.url === url);
    expect(sent).toBeDefined();
    return sent?.tenant;
  };

  it('POST /scrape tells extractor-scrape the tenant of the key that asked: one per key, the same each time', async () => {
    const a1 = await tenantOf(KEY_A, 'http://127.0.0.1:9/a1');
    const a2 = await tenantOf(KEY_A, 'http://127.0.0.1:9/a2');
    const b = await tenantOf(KEY_B, 'http://127.0.0.1:9/b');
    expect(typeof a1).toBe('string');
    expect(a1).toBe(a2);
    expect(b).not.toBe(a1);
    expect([a1, b]).not.toContain(KEY_A); // an id of the key, not the key itself
  });

  it('POST /scrape naming another tenant in the body is refused (400 naming tenant), and nothing is scraped', async () => {
    const victim = await tenantOf(KEY_B, 'http://127.0.0.1:9/victim');
    const before = seen.length;
    const res = await post('/scrape', KEY_A, { url: 'http://127.0.0.1:9/forged', tenant: victim });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ data: { error: 'VALIDATION_FAILED', field: 'tenant' } });
    expect(seen.length).toBe(before);
  });

  it("POST /extract type scrape carries the key's tenant, and refuses one in the body", async () => {
    const own = await tenantOf(KEY_A, 'http://127.0.0.1:9/own');
    const ok = await post('/extract', KEY_A, { type: 'scrape', url: 'http://127.0.0.1:9/extract' });
    expect(ok.status).toBe(200);
    expect(seen.find((s) => s.url === 'http://127.0.0.1:9/extract')?.tenant).toBe(own);
    const victim = await tenantOf(KEY_B, 'http://127.0.0.1:9/victim-2');
    const before = seen.length;
    const forged = await post('/extract', KEY_A, { type: 'scrape', url: 'http://127.0.0.1:9/x', tenant: victim });
    expect(forged.status).toBe(400);
    expect(forged.body).toMatchObject({ data: { error: 'VALIDATION_FAILED', field: 'tenant' } });
    expect(seen.length).toBe(before);
  });
});
