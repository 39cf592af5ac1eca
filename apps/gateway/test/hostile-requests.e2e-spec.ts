import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { loadEnv, GatewayEnv } from '@trawl/config';
import { startNats, type TestServer } from '@trawl/testing';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { createGatewayApp } from '../src/gateway-app.factory.js';

const KEY = 'hostile-key';
const BASE = '/api/openapi/v1';
const JSON_HEADERS = { 'x-api-key': KEY, 'content-type': 'application/json' };
const ENVELOPE_KEYS = ['requestId', 'code', 'errorCode', 'message', 'timestamp', 'data'];

/** Asserts the failure envelope with `status` and `error`, and returns its body. */
function expectEnvelope(res: LightMyRequestResponse, status: number, error: string): Record<string, unknown> {
  expect(res.statusCode).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  const body = res.json<Record<string, unknown>>();
  expect(Object.keys(body)).toEqual(ENVELOPE_KEYS);
  expect(body).toMatchObject({ code: status, errorCode: status, data: { error } });
  expect(res.headers['x-request-id']).toBe(body.requestId);
  return body;
}

describe('hostile requests get the envelope (in-process gateway, real NATS)', () => {
  let nats: TestServer;
  let app: NestFastifyApplication;
  const inject = (options: InjectOptions): Promise<LightMyRequestResponse> =>
    app.getHttpAdapter().getInstance().inject(options);

  beforeAll(async () => {
    nats = await startNats();
    const env = loadEnv(GatewayEnv, { NATS_URL: nats.url, API_KEYS: KEY, BODY_LIMIT_BYTES: String(5 * 1024 * 1024) });
    app = await createGatewayApp(env, { logger: false, swaggerUi: false });
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
  });

  afterAll(async () => {
    await app?.close();
    await nats?.stop();
  });

  it('answers JSON nested 3,000 levels deep with 400 JSON_TOO_DEEP, not 500', async () => {
    for (const nested of ['['.repeat(3000) + ']'.repeat(3000), '{"a":'.repeat(3000) + '1' + '}'.repeat(3000)]) {
      const res = await inject({
        method: 'POST',
        url: `${BASE}/scrape`,
        headers: JSON_HEADERS,
        payload: `{"url":"http://a.test/","x":${nested}}`,
      });
      const body = expectEnvelope(res, 400, 'JSON_TOO_DEEP');
      expect(body.message).toContain('64 levels');
    }
  });

  it('answers a 5 MB body of open brackets with 400 JSON_TOO_DEEP (no recursion on the event loop)', async () => {
    const res = await inject({
      method: 'POST',
      url: `${BASE}/extractTask/batch`,
      headers: JSON_HEADERS,
      payload: '['.repeat(5 * 1024 * 1024 - 16),
    });
    expectEnvelope(res, 400, 'JSON_TOO_DEEP');
  });

  it('still takes nesting up to the limit (the depth check counts brackets in strings as text)', async () => {
    const inString = '"' + '['.repeat(5000) + '"';
    const res = await inject({
      method: 'POST',
      url: `${BASE}/scrape`,
      headers: JSON_HEADERS,
      payload: `{"url":"http://a.test/","x":${'['.repeat(63)}${inString}${']'.repeat(63)}}`,
    });
    // Parsed: refused by validation for the unknown member, not for depth.
    expect(expectEnvelope(res, 400, 'VALIDATION_FAILED').message).toBe('property x is not allowed');
  });

  it('answers a path parameter over 256 characters with 414 URI_TOO_LONG in the envelope', async () => {
    const res = await inject({
      method: 'GET',
      url: `${BASE}/extractTask/${'a'.repeat(300)}`,
      headers: { 'x-api-key': KEY },
    });
    expectEnvelope(res, 414, 'URI_TOO_LONG');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  it('answers a path with bad percent-encoding with 400 in the envelope', async () => {
    const res = await inject({ method: 'GET', url: `${BASE}/extractTask/%E0%A4%A`, headers: { 'x-api-key': KEY } });
    expect(expectEnvelope(res, 400, 'VALIDATION_FAILED').data).toMatchObject({ field: 'path' });
  });

  it('answers text/plain, form and multipart bodies with 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    for (const type of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/xml',
    ]) {
      const res = await inject({
        method: 'POST',
        url: `${BASE}/scrape`,
        headers: { 'x-api-key': KEY, 'content-type': type },
        payload: 'url=http://a.test/',
      });
      expect(expectEnvelope(res, 415, 'UNSUPPORTED_MEDIA_TYPE').message).toBe('Content-Type must be application/json');
    }
  });

  it('answers an oversize body with 413 PAYLOAD_TOO_LARGE', async () => {
    const res = await inject({
      method: 'POST',
      url: `${BASE}/scrape`,
      headers: JSON_HEADERS,
      payload: `{"url":"http://a.test/${'a'.repeat(5 * 1024 * 1024)}"}`,
    });
    expectEnvelope(res, 413, 'PAYLOAD_TOO_LARGE');
  });

  it('answers __proto__ and constructor.prototype members with 400 MALFORMED_JSON', async () => {
    for (const payload of [
      '{"url":"http://a.test/","__proto__":{"admin":true}}',
      '{"constructor":{"prototype":{"admin":true}}}',
    ]) {
      const res = await inject({ method: 'POST', url: `${BASE}/scrape`, headers: JSON_HEADERS, payload });
      expectEnvelope(res, 400, 'MALFORMED_JSON');
    }
  });

  it('answers a known path with another method with 405 and Allow, an unknown path with 404', async () => {
    const res = await inject({ method: 'DELETE', url: `${BASE}/scrape`, headers: { 'x-api-key': KEY } });
    expectEnvelope(res, 405, 'METHOD_NOT_ALLOWED');
    expect(res.headers.allow).toBe('POST');
    const lookup = await inject({ method: 'PATCH', url: `${BASE}/extractTask/abc`, headers: { 'x-api-key': KEY } });
    expectEnvelope(lookup, 405, 'METHOD_NOT_ALLOWED');
    expect(lookup.headers.allow).toBe('DELETE, GET, HEAD');
    const unknown = await inject({ method: 'GET', url: `${BASE}/nope/nope`, headers: { 'x-api-key': KEY } });
    expectEnvelope(unknown, 404, 'NOT_FOUND');
  });

  it('answers headers over 16 KiB with 431 HEADERS_TOO_LARGE in the envelope (real socket, loopback)', async () => {
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = new URL(await app.getUrl());
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => {
        socket.write(
          `GET ${BASE}/extractTask/1 HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: ${KEY}\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`,
        );
      });
      let data = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => (data += chunk));
      socket.on('end', () => resolve(data));
      socket.on('error', reject);
    });
    const [head = '', json = ''] = raw.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 431 /);
    const body = JSON.parse(json) as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(ENVELOPE_KEYS);
    expect(body).toMatchObject({ code: 431, errorCode: 431, data: { error: 'HEADERS_TOO_LARGE', retryable: false } });
    // docs/errors.md: a fresh request id, the same in the X-Request-Id header, and the connection closed.
    expect(body.requestId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(head).toContain(`X-Request-Id: ${String(body.requestId)}\r\n`);
    expect(head).toMatch(/\r\nConnection: close(\r\n|$)/);
  });
});
