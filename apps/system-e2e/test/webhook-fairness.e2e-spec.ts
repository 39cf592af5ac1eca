import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Webhook } from 'standardwebhooks';
import { eventually, startLoopbackHttp, type LoopbackServer } from '@trawl/testing';
import { API_KEY, callApi, signingSecretOf, startStack, type Stack } from './support/stack.js';
import { readWebhook } from './support/webhook-receiver.js';

const KEY_A = API_KEY;
const KEY_B = 'system-e2e-tenant-b';
const A_TASKS = 300;
const B_TASKS = 10;
/** A delivery's deadline: each of A's requests is aborted this long after it started. */
const WEBHOOK_TIMEOUT_MS = 20_000;
const HOST_CONCURRENCY = 4;

/**
 * "One tenant's receiver cannot hold up another's": key A's outcomes go to a receiver that accepts the connection and
 * never answers; key B, submitting just after, has a healthy receiver. The receivers log, in one sequence, each of A's
 * requests arriving and being aborted (its attempt timed out) and each of B's deliveries.
 */
describe("webhook delivery: a tenant's hanging receiver does not hold up another tenant's (processes, real Redis and NATS)", () => {
  let site: LoopbackServer;
  let hanging: LoopbackServer;
  let healthy: LoopbackServer;
  let stack: Stack;
  const events: { what: 'a-received' | 'a-aborted' | 'b-delivered'; taskId?: string; verified?: boolean }[] = [];

  beforeAll(async () => {
    site = await startLoopbackHttp((req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><html><head><title>${req.url}</title></head><body><h1>${req.url}</h1></body></html>`);
    });
    hanging = await startLoopbackHttp((req) => {
      events.push({ what: 'a-received' });
      req.socket.once('close', () => events.push({ what: 'a-aborted' }));
    });
    // B's outcomes are signed with B's own secret (derived per key: docs/webhooks.md).
    const wh = new Webhook(signingSecretOf(KEY_B));
    healthy = await startLoopbackHttp((req, res, body) => {
      const read = readWebhook(wh, req, body);
      events.push({ what: 'b-delivered', taskId: (read.body as { taskId: string }).taskId, verified: read.verified });
      res.end();
    });
    stack = await startStack(['gateway', 'task-service', 'webhook-dispatcher', 'extractor-scrape'], {
      API_KEYS: `${KEY_A},${KEY_B}`,
      SSRF_ALLOW_HOSTS: '127.0.0.1',
      TASK_SCRAPE_ENGINE: 'http',
      TASK_CONCURRENCY_SCRAPE: '16',
      WEBHOOK_TIMEOUT_MS: String(WEBHOOK_TIMEOUT_MS),
      WEBHOOK_CONCURRENCY: '16',
      WEBHOOK_HOST_CONCURRENCY: String(HOST_CONCURRENCY),
    });
  }, 90_000);

  afterAll(async () => {
    await stack?.stop();
    await Promise.all([site?.close(), hanging?.close(), healthy?.close()]);
  });

  async function submit(key: string, name: string, n: number, webhook: string): Promise<string[]> {
    const urls = Array.from({ length: n }, (_, i) => `${site.url}/${name}/${i}`);
    const res = await callApi(
      stack,
      'POST',
      '/extractTask/batch',
      { urls, webhook: `${webhook}/${name}`, type: 'scrape', timeout: 10_000 },
      { 'x-api-key': key },
    );
    expect(res.status).toBe(200);
    return res.body.data.map((j: { id: string }) => j.id);
  }

  it("delivers all of key B's outcomes before any of key A's first attempts to a receiver that never answers has timed out", async () => {
    await submit(KEY_A, 'a', A_TASKS, hanging.url);
    const bIds = await submit(KEY_B, 'b', B_TASKS, healthy.url);
    await eventually(() => events.filter((e) => e.what === 'b-delivered').length >= B_TASKS, 60_000, 50);
    await eventually(() => events.some((e) => e.what === 'a-aborted'), WEBHOOK_TIMEOUT_MS + 30_000, 100);
    const firstAbort = events.findIndex((e) => e.what === 'a-aborted');
    const before = events.slice(0, firstAbort);
    // Every outcome of B, signed, arrived before A's first time-out.
    const bDelivered = before.filter((e) => e.what === 'b-delivered');
    expect(new Set(bDelivered.map((e) => e.taskId))).toEqual(new Set(bIds));
    expect(bDelivered.every((e) => e.verified)).toBe(true);
    // A's outcomes held at most the per-host share of the slots, and A's receiver saw them.
    expect(before.filter((e) => e.what === 'a-received')).toHaveLength(HOST_CONCURRENCY);
  }, 120_000);
});
