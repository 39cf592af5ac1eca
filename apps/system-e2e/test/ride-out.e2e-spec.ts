import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Queue } from 'bullmq';
import { QUEUES } from '@trawl/contracts';
import { queuePrefix } from '@trawl/tasks';
import { eventually, startLoopbackHttp, type LoopbackServer } from '@trawl/testing';
import { callApi, SIGNING_SECRET, startStack, type Stack } from './support/stack.js';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js';

const TASKS = 500;
const CONCURRENCY = 8;
/** Each page is answered after this long, so the batch is still running through every outage below. */
const PAGE_DELAY_MS = 150;
/** How long extractor-scrape stays stopped (the figure). */
const EXTRACTOR_OUTAGE_MS = 20_000;
/** How long NATS or Redis stays away. */
const OUTAGE_MS = 2000;

/**
 * "A task never fails because the fleet was briefly away": a 500-URL batch through the whole system (every service a
 * process, real Redis and NATS with JetStream) while extractor-scrape is stopped for 20 s and started again, then
 * nats-server restarts, then Redis restarts. Every task ends completed, with exactly one outcome, and no attempt was
 * spent on an outage: a task with attemptsMade above 1 has a real failure (not SERVICE_UNAVAILABLE) for each extra
 * attempt in its stacktrace (the pages never fail; only a CPU-starved extractor can miss a task's timeout).
 */
describe('riding out outages of the extractor fleet, NATS and Redis mid-batch (processes, real Redis and NATS)', () => {
  let site: LoopbackServer;
  let receiver: WebhookReceiver;
  let stack: Stack;
  let queue: Queue;

  beforeAll(async () => {
    site = await startLoopbackHttp(async (req, res) => {
      await new Promise((r) => setTimeout(r, PAGE_DELAY_MS));
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><html><head><title>${req.url}</title></head><body><h1>${req.url}</h1></body></html>`);
    });
    receiver = await startWebhookReceiver(SIGNING_SECRET);
    stack = await startStack(['gateway', 'task-service', 'webhook-dispatcher', 'extractor-scrape'], {
      SSRF_ALLOW_HOSTS: '127.0.0.1',
      TASK_SCRAPE_ENGINE: 'http',
      TASK_CONCURRENCY_SCRAPE: String(CONCURRENCY),
      TASK_FLEET_PROBE_INTERVAL_MS: '250',
      WEBHOOK_RETRY_SCHEDULE: '200ms,200ms,200ms,500ms,1s,1s,1s,1s,1s,1s',
      WEBHOOK_RETRY_JITTER: '0',
      // Outcomes not published (NATS was away) are found by the sweep; in production every 30 s.
      TASK_OUTCOME_SWEEP_INTERVAL_MS: '1000',
    });
    queue = new Queue(QUEUES.scrape, {
      connection: { url: stack.redisUrl, maxRetriesPerRequest: null },
      prefix: queuePrefix(QUEUES.scrape),
    });
    queue.on('error', () => undefined); // Redis restarts under it
  }, 90_000);

  afterAll(async () => {
    await queue?.close();
    await stack?.stop();
    await Promise.all([site?.close(), receiver?.close()]);
  });

  const delivered = (ids: Set<string>) =>
    new Set(
      receiver.deliveries
        .filter((d) => d.status >= 200 && d.status < 300 && ids.has(d.body?.taskId as string))
        .map((d) => d.body.taskId as string),
    ).size;

  it('completes every task of a 500-URL batch, once each, spending no attempt on an extractor, a NATS or a Redis outage', async () => {
    const urls = Array.from({ length: TASKS }, (_, i) => `${site.url}/ride/${i}`);
    const res = await callApi(stack, 'POST', '/extractTask/batch', {
      urls,
      webhook: `${receiver.url}/ride`,
      type: 'scrape',
      timeout: 10_000,
    });
    expect(res.status).toBe(200);
    const ids: string[] = res.body.data.map((j: { id: string }) => j.id);
    const idSet = new Set(ids);
    const progress: number[] = [];

    // 1. extractor-scrape stops (as a rolling update or a scale-down stops it) for 20 s.
    await eventually(() => delivered(idSet) >= 50, 60_000, 20);
    await stack.services.get('extractor-scrape')!.stop('SIGTERM');
    progress.push(delivered(idSet));
    await new Promise((r) => setTimeout(r, EXTRACTOR_OUTAGE_MS));
    // Nothing failed meanwhile: the queue waited.
    expect(await queue.getFailedCount()).toBe(0);
    await stack.startService('extractor-scrape', { INSTANCE_ID: 'extractor-scrape-again' });

    // 2. nats-server restarts (same port, same JetStream store).
    await eventually(() => delivered(idSet) >= progress[0] + 100, 60_000, 20);
    await stack.restartNats(async () => {
      progress.push(delivered(idSet));
      await new Promise((r) => setTimeout(r, OUTAGE_MS));
    });

    // 3. Redis restarts (AOF).
    await eventually(() => delivered(idSet) >= progress[1] + 100, 60_000, 20);
    await stack.restartRedis(async () => {
      progress.push(delivered(idSet));
      await new Promise((r) => setTimeout(r, OUTAGE_MS));
    });
    // Every outage happened mid-batch.
    expect(progress[2]).toBeLessThan(TASKS);

    const outcomes = await receiver.outcomesOf(ids, 120_000, 1500);
    const lost = outcomes.filter((hooks) => !hooks.some((h) => h.status === 200)).length;
    /** The failed attempts' causes (`CODE: message`) of the tasks that needed more than one. */
    const extraAttempts: string[] = [];
    for (const [i, hooks] of outcomes.entries()) {
      // One outcome per task: any repeated delivery carries the same webhook-id and the same record.
      expect(hooks.every((h) => h.verified)).toBe(true);
      expect(new Set(hooks.map((h) => h.id)).size).toBe(1);
      for (const h of hooks) expect(h.body).toEqual(hooks[0].body);
      expect(hooks[0].body).toMatchObject({ event: 'task.completed', taskId: ids[i], status: 'completed' });
      // Every attempt beyond the first is one that really failed, and says why in the stacktrace.
      expect(hooks[0].body.stacktrace).toHaveLength(hooks[0].body.attemptsMade - 1);
      extraAttempts.push(...(hooks[0].body.stacktrace as string[]));
    }
    expect(lost).toBe(0);
    // Outcomes of different tasks never share a webhook-id.
    expect(new Set(outcomes.map((hooks) => hooks[0].id)).size).toBe(TASKS);
    // No attempt was spent on an outage: none failed for want of a responder or of the NATS connection. (A request
    // that a busy machine's extractor does not answer within the task's timeout is a real attempt; on a quiet
    // machine there is none and every task shows attemptsMade 1.)
    expect(extraAttempts.filter((cause) => cause.startsWith('SERVICE_UNAVAILABLE'))).toEqual([]);
    expect(extraAttempts.length).toBeLessThan(TASKS / 100);
    expect(await queue.getCompletedCount()).toBe(TASKS);
    expect(await queue.getFailedCount()).toBe(0);
  }, 240_000);
});
