import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Webhook } from 'standardwebhooks';
import { eventually, startLoopbackHttp, type LoopbackServer } from '@trawl/testing';
import { API_KEY, callApi, MASTER_SIGNING_SECRET, signingSecretOf, startStack, type Stack } from './support/stack.js';

const KEY_B = 'system-e2e-tenant-b-key';
const asA = { 'x-api-key': API_KEY };
const asB = { 'x-api-key': KEY_B };

interface RawDelivery {
  headers: Record<string, string>;
  body: string;
}

/**
 * Issue 8, "must show" 3 (tenants): through the whole stack (gateway, task-service, webhook-dispatcher and
 * extractor-scrape as processes on real Redis and NATS), two bootstrap keys A and B. B cannot look up A's task, and
 * B's webhooks are signed with B's own secret: a receiver holding A's secret (or the master) rejects them. Also the
 * per-key cap of outstanding jobs answers 429 with Retry-After, for URL tasks and for each query of a maps batch.
 */
describe('tenants are isolated (processes, real Redis and NATS)', () => {
  let site: LoopbackServer;
  let hooks: LoopbackServer;
  const deliveries: RawDelivery[] = [];
  let stack: Stack;

  beforeAll(async () => {
    site = await startLoopbackHttp((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><html><head><title>Tenant page</title></head><body><h1>Tenant page</h1></body></html>');
    });
    hooks = await startLoopbackHttp((req, res, body) => {
      deliveries.push({
        headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])),
        body,
      });
      res.statusCode = 200;
      res.end();
    });
    stack = await startStack(['gateway', 'task-service', 'webhook-dispatcher', 'extractor-scrape'], {
      API_KEYS: `${API_KEY},${KEY_B}`,
      SSRF_ALLOW_HOSTS: '127.0.0.1',
      TASK_SCRAPE_ENGINE: 'http',
      TASK_MAX_OUTSTANDING_PER_KEY: '5',
      WEBHOOK_RETRY_SCHEDULE: '100ms,100ms',
    });
  });

  afterAll(async () => {
    await stack?.stop();
    await Promise.all([site?.close(), hooks?.close()]);
  });

  async function submit(headers: Record<string, string>, path: string): Promise<string> {
    const res = await callApi(
      stack,
      'POST',
      '/extractTask/batch',
      { urls: [`${site.url}/${path}`], webhook: `${hooks.url}/${path}`, type: 'scrape' },
      headers,
    );
    expect(res.status).toBe(200);
    return res.body.data[0].id as string;
  }

  it("key B cannot look up key A's task: 404 TASK_NOT_FOUND, answered exactly as an unknown id", async () => {
    const id = await submit(asA, 'owned-by-a');
    expect((await callApi(stack, 'GET', `/extractTask/${id}`, undefined, asA)).status).toBe(200);

    const byB = await callApi(stack, 'GET', `/extractTask/${id}`, undefined, asB);
    const unknownId = id.replace(/[0-9a-f]{4}$/, '0000');
    const unknown = await callApi(stack, 'GET', `/extractTask/${unknownId}`, undefined, asB);
    expect(byB.status).toBe(404);
    expect(byB.body.data).toEqual({ error: 'TASK_NOT_FOUND', retryable: false });
    expect(unknown.status).toBe(404);
    expect({ ...byB.body, requestId: '', timestamp: 0 }).toEqual({
      ...unknown.body,
      requestId: '',
      timestamp: 0,
      message: unknown.body.message.replace(unknownId, id),
    });
  }, 60_000);

  it("B's webhooks verify with B's own secret, and not with A's or the master secret", async () => {
    const idA = await submit(asA, 'hook-a');
    const idB = await submit(asB, 'hook-b');
    const secretA = signingSecretOf(API_KEY);
    const secretB = signingSecretOf(KEY_B);
    expect(secretA).not.toBe(secretB);
    const deliveryOf = (taskId: string) =>
      deliveries.find((d) => (JSON.parse(d.body) as { taskId?: string }).taskId === taskId);
    const [a, b] = await eventually(() => {
      const pair = [deliveryOf(idA), deliveryOf(idB)];
      return pair.every(Boolean) ? (pair as RawDelivery[]) : undefined;
    }, 30_000);

    const verifies = (secret: string, d: RawDelivery) => {
      try {
        new Webhook(secret).verify(d.body, d.headers);
        return true;
      } catch {
        return false;
      }
    };
    expect(verifies(secretB, b)).toBe(true);
    expect(verifies(secretA, b)).toBe(false);
    expect(verifies(MASTER_SIGNING_SECRET, b)).toBe(false);
    expect(verifies(secretA, a)).toBe(true);
    expect(verifies(secretB, a)).toBe(false);
  }, 60_000);

  it('refuses a batch that would take a key past its cap of outstanding jobs: 429 RATE_LIMITED with Retry-After', async () => {
    const urls = Array.from({ length: 6 }, (_, i) => `${site.url}/many/${i}`);
    const res = await callApi(
      stack,
      'POST',
      '/extractTask/batch',
      { urls, webhook: `${hooks.url}/many`, type: 'scrape' },
      asB,
    );
    expect(res.status).toBe(429);
    expect(res.body.data).toEqual({ error: 'RATE_LIMITED', retryable: true });
    expect(res.body.message).toMatch(/at most 5/);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  }, 30_000);

  it('counts each query of a maps batch against the cap: 6 queries under a cap of 5 answer 429 (ADR 0021)', async () => {
    const querys = Array.from({ length: 6 }, (_, i) => `coffee ${i}`);
    const res = await callApi(stack, 'POST', '/extractTask/batch/maps', { querys, webhook: `${hooks.url}/maps` }, asB);
    expect(res.status).toBe(429);
    expect(res.body.data).toEqual({ error: 'RATE_LIMITED', retryable: true });
    expect(res.body.message).toMatch(/at most 5; this batch of 6/);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  }, 30_000);
});
