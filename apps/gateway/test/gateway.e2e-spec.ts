import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { NatsConnection } from '@nats-io/nats-core';
import { loadEnv, GatewayEnv } from '@trawl/config';
import { SUBJECTS, TrawlError, type ScrapeResult } from '@trawl/contracts';
import { connectNats } from '@trawl/messaging';
import { serveSubject, startNats, type TestServer } from '@trawl/testing';
import { createGatewayApp } from '../src/gateway-app.factory.js';

const KEY = 'test-key-1';
const BASE = '/api/openapi/v1';

describe('gateway (in-process, real NATS, stand-in extractors)', () => {
  let nats: TestServer;
  let nc: NatsConnection;
  let app: NestFastifyApplication;
  let base = '';
  const seen: { subject: string; data: unknown }[] = [];
  let nestLayout = true;
  const BATCH_JOBS = [
    {
      name: 'scrape',
      data: { kind: 'url', url: 'https://a.test/é?q="x"' },
      opts: { attempts: 5 },
      id: 'scrape_1',
      returnvalue: null,
    },
    {
      name: 'scrape',
      data: { kind: 'url', url: 'https://b.test/' },
      opts: { attempts: 5 },
      id: 'scrape_2',
      returnvalue: null,
    },
  ];

  beforeAll(async () => {
    nats = await startNats();
    nc = await connectNats([nats.url], 'stand-ins');
    serveSubject(nc, SUBJECTS.scrapePage, (data) => {
      seen.push({ subject: SUBJECTS.scrapePage, data });
      const req = data as { url: string };
      if (req.url.includes('blocked')) throw new TrawlError('UPSTREAM_BLOCKED', 'the site answered with a captcha');
      const result: ScrapeResult = {
        sourceURL: req.url,
        taskId: 't',
        edgeId: 'e',
        status: 200,
        rawStatus: 200,
        markdown: '# Hello',
        metadata: { title: 'Hello', url: req.url, engine: 'http', contentType: 'text/html' },
      };
      return result;
    });
    serveSubject(nc, SUBJECTS.extractRetail, (data) => {
      seen.push({ subject: SUBJECTS.extractRetail, data });
      return { title: 'A product' };
    });
    // task-service stand-in answering in Nest's own frame layout, or (nestLayout false) with the members reordered.
    nc.subscribe(SUBJECTS.taskSubmit, {
      queue: 'test-responders',
      callback: (_err, msg) => {
        const frame = JSON.parse(new TextDecoder().decode(msg.data)) as { id: string; data: unknown };
        seen.push({ subject: SUBJECTS.taskSubmit, data: frame.data });
        const reply = { jobs: BATCH_JOBS };
        msg.respond(
          JSON.stringify(
            nestLayout
              ? { response: reply, isDisposed: true, id: frame.id }
              : { id: frame.id, isDisposed: true, response: reply },
          ),
        );
      },
    });
    await nc.flush();
    const env = loadEnv(GatewayEnv, { NATS_URL: nats.url, API_KEYS: `${KEY},other-key`, BODY_LIMIT_BYTES: '2048' });
    app = await createGatewayApp(env, { logger: false, swaggerUi: false });
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = await app.getUrl();
  });

  afterAll(async () => {
    await app?.close();
    await nc?.close();
    await nats?.stop();
  });

  interface Res {
    statusCode: number;
    headers: Record<string, string>;
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- test reads arbitrary JSON
    json(): any;
  }

  async function request(
    method: string,
    path: string,
    body?: string,
    headers: Record<string, string> = {},
  ): Promise<Res> {
    const res = await fetch(`${base}${path}`, { method, body, headers });
    const text = await res.text();
    return {
      statusCode: res.status,
      headers: Object.fromEntries(res.headers.entries()),
      json: () => JSON.parse(text),
    };
  }

  const post = (url: string, payload: unknown, headers: Record<string, string> = { 'x-api-key': KEY }) =>
    request('POST', `${BASE}${url}`, JSON.stringify(payload), { 'content-type': 'application/json', ...headers });

  it('wraps a scrape result in the success envelope with a request id header', async () => {
    const res = await post('/scrape', { url: 'http://127.0.0.1:9/page' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ code: 0, errorCode: 200, message: 'success', data: { markdown: '# Hello' } });
    expect(body.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers['x-request-id']).toBe(body.requestId);
    expect(typeof body.timestamp).toBe('number');
  });

  it('sends the spec defaults to the extractor (formats markdown, timeout 25000)', async () => {
    await post('/scrape', { url: 'http://127.0.0.1:9/defaults' });
    const last = seen.filter((s) => s.subject === SUBJECTS.scrapePage).pop();
    expect(last?.data).toMatchObject({ url: 'http://127.0.0.1:9/defaults', formats: ['markdown'], timeout: 25000 });
  });

  it('refuses a missing key with 401 in the envelope', async () => {
    const res = await post('/scrape', { url: 'http://x.test/' }, {});
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ code: 401, errorCode: 401, data: { error: 'UNAUTHORIZED' } });
  });

  it('refuses a wrong key with 401', async () => {
    const res = await post('/scrape', { url: 'http://x.test/' }, { 'x-api-key': 'nope' });
    expect(res.statusCode).toBe(401);
    expect(res.json().message).toBe('invalid API key');
  });

  it('answers formats ["pdf"] with 400 naming formats', async () => {
    const res = await post('/scrape', { url: 'http://x.test/', formats: ['pdf'] });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ errorCode: 400, data: { error: 'VALIDATION_FAILED', field: 'formats' } });
    expect(res.json().message).toContain('formats');
  });

  it('answers malformed JSON with 400 MALFORMED_JSON', async () => {
    const res = await request('POST', `${BASE}/scrape`, '{"url": ', {
      'x-api-key': KEY,
      'content-type': 'application/json',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ errorCode: 400, data: { error: 'MALFORMED_JSON' } });
  });

  it('answers an oversize body with 413 in the envelope', async () => {
    const res = await post('/scrape', { url: `http://x.test/${'a'.repeat(4000)}` });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ errorCode: 413, data: { error: 'PAYLOAD_TOO_LARGE' } });
  });

  it('answers an unknown type with 400 listing the allowed values', async () => {
    const res = await post('/extract', { url: 'http://x.test/', type: 'pdf' });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toContain('type must be one of: retail, mp-maps, mp-search, scrape');
  });

  it('routes /extract by type and wraps the record with taskId, status and params', async () => {
    const res = await post('/extract', {
      url: 'https://shop.test/dp/B000000001',
      type: 'retail',
      params: { hl: 'en' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({
      data: { title: 'A product' },
      status: 'completed',
      params: { url: 'https://shop.test/dp/B000000001', type: 'retail', timeout: 25000 },
      stacktrace: '',
    });
    const last = seen.filter((s) => s.subject === SUBJECTS.extractRetail).pop();
    expect(last?.data).toMatchObject({ url: 'https://shop.test/dp/B000000001?hl=en' });
  });

  it('maps an extractor error code to its HTTP status (blocked: 503, retryable)', async () => {
    const res = await post('/scrape', { url: 'http://blocked.test/' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ data: { error: 'UPSTREAM_BLOCKED', retryable: true } });
  });

  it('answers 503 naming the service when nothing serves the operation within the request timeout', async () => {
    // "No responders" is ridden out until the request's own deadline, then answered 503.
    const res = await post('/extract/search', { q: 'coffee', timeout: 1000 });
    expect(res.statusCode).toBe(503);
    expect(res.json().message).toContain('extractor-search');
    const lookup = await request('GET', `${BASE}/extractTask/123`, undefined, { 'x-api-key': KEY });
    expect(lookup.statusCode).toBe(503);
    expect(lookup.json().message).toContain('task-service');
  });

  it('refuses a job id task-service would refuse (a ":" too) with 400 VALIDATION_FAILED naming jobId, asking no one', async () => {
    for (const id of ['scrape_a:b', 'a.b', 'a'.repeat(201)]) {
      const res = await request('GET', `${BASE}/extractTask/${id}`, undefined, { 'x-api-key': KEY });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({
        message: 'jobId must be 1-200 letters, digits, "_" or "-"',
        data: { error: 'VALIDATION_FAILED', field: 'jobId' },
      });
    }
  });

  it('answers an unknown route with 404 in the envelope', async () => {
    const res = await post('/nope', {});
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ errorCode: 404, data: { error: 'NOT_FOUND' } });
  });

  it('answers a URL batch with the job objects task-service sent, in the envelope, whatever the reply frame layout', async () => {
    for (const layout of [true, false]) {
      nestLayout = layout;
      const res = await post('/extractTask/batch', {
        urls: ['https://a.test/', 'https://b.test/'],
        webhook: 'https://h.test/x',
        type: 'scrape',
      });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      const body = res.json();
      expect(Object.keys(body)).toEqual(['requestId', 'code', 'errorCode', 'message', 'timestamp', 'data']);
      expect(body).toMatchObject({ code: 0, errorCode: 200, message: 'success', data: BATCH_JOBS });
      expect(res.headers['x-request-id']).toBe(body.requestId);
      expect(typeof body.timestamp).toBe('number');
    }
    const last = seen.filter((s) => s.subject === SUBJECTS.taskSubmit).pop();
    expect(last?.data).toMatchObject({
      kind: 'url',
      request: { urls: ['https://a.test/', 'https://b.test/'], timeout: 25000 },
    });
  });

  it('serves the OpenAPI document with every operation', async () => {
    const res = await request('GET', `${BASE}/openapi.json`);
    expect(res.statusCode).toBe(200);
    const paths = Object.keys(res.json().paths);
    expect(paths).toEqual(
      expect.arrayContaining([
        `/${BASE.slice(1)}/extract/search`,
        `/${BASE.slice(1)}/extract/search/maps`,
        `/${BASE.slice(1)}/extract`,
        `/${BASE.slice(1)}/scrape`,
        `/${BASE.slice(1)}/extractTask/batch/maps`,
        `/${BASE.slice(1)}/extractTask/batch/search`,
        `/${BASE.slice(1)}/extractTask/batch`,
        `/${BASE.slice(1)}/extractTask/{jobId}`,
      ]),
    );
  });

  it('exports request and NATS metrics after traffic', async () => {
    await post('/scrape', { url: 'http://127.0.0.1:9/metrics-probe' });
    const res = await fetch(`${base}/metrics`);
    const text = await res.text();
    expect(res.status).toBe(200);
    expect(text).toMatch(
      /trawl_http_requests_total\{[^}]*route="\/api\/openapi\/v1\/scrape"[^}]*status="200"[^}]*\} [1-9]/,
    );
    expect(text).toMatch(/trawl_nats_request_duration_seconds_count\{[^}]*subject="scrape.page.v1"[^}]*\} [1-9]/);
  });

  it('answers health without a key', async () => {
    const res = await request('GET', '/health/ready');
    expect(res.statusCode).toBe(200);
  });
});
