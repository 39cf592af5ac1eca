import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Queue } from 'bullmq';
import { QUEUES } from '@trawl/contracts';
import { queuePrefix } from '@trawl/tasks';
import { eventually, startLoopbackHttp, type LoopbackServer } from '@trawl/testing';
import { callApi, SIGNING_SECRET, startStack, type Stack } from './support/stack.js';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js';

const TASKS = 20;
/**
 * How long a task waits for its fleet here (production default: 15 min): longer than extractor-scrape takes to start
 * on a busy 2-core machine (under a load average of 20 it once took more than 17 s), short enough for the suite.
 */
const FLEET_MAX_WAIT_MS = 40_000;
/** How long the batch is watched while no extractor runs. */
const ABSENT_MS = 3000;

/**
 * "Pause, don't drain" and "bounded", through the whole system (every service a process, real Redis and NATS): with
 * no extractor-scrape running, scrape tasks wait without using attempts and complete once one starts; a task whose
 * fleet stays away past TASK_FLEET_MAX_WAIT_MS fails, once, with SERVICE_UNAVAILABLE.
 */
describe('waiting for an absent extractor fleet (processes, real Redis and NATS)', () => {
  let site: LoopbackServer;
  let receiver: WebhookReceiver;
  let stack: Stack;
  let queue: Queue;

  beforeAll(async () => {
    site = await startLoopbackHttp((req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><html><head><title>${req.url}</title></head><body><h1>${req.url}</h1></body></html>`);
    });
    receiver = await startWebhookReceiver(SIGNING_SECRET);
    // No extractor-scrape: the fleet of the scrape queue is away from the start.
    stack = await startStack(['gateway', 'task-service', 'webhook-dispatcher'], {
      SSRF_ALLOW_HOSTS: '127.0.0.1',
      TASK_SCRAPE_ENGINE: 'http',
      TASK_FLEET_MAX_WAIT_MS: String(FLEET_MAX_WAIT_MS),
      TASK_FLEET_PROBE_INTERVAL_MS: '250',
    });
    queue = new Queue(QUEUES.scrape, {
      connection: { url: stack.redisUrl, maxRetriesPerRequest: null },
      prefix: queuePrefix(QUEUES.scrape),
    });
  }, 90_000);

  afterAll(async () => {
    await queue?.close();
    await stack?.stop();
    await Promise.all([site?.close(), receiver?.close()]);
  });

  async function submit(name: string, n: number): Promise<string[]> {
    const urls = Array.from({ length: n }, (_, i) => `${site.url}/${name}/${i}`);
    const res = await callApi(stack, 'POST', '/extractTask/batch', {
      urls,
      webhook: `${receiver.url}/${name}`,
      type: 'scrape',
      timeout: 5000,
    });
    expect(res.status).toBe(200);
    return res.body.data.map((j: { id: string }) => j.id);
  }

  /** task-service's readiness details: each extractor queue's fleet as it sees it. */
  async function fleets(): Promise<Record<string, string>> {
    const res = await fetch(`http://127.0.0.1:${stack.metricsPorts.get('task-service')}/health/ready`);
    return ((await res.json()) as { details: { fleets: Record<string, string> } }).details.fleets;
  }

  it('keeps a batch waiting, without using attempts, while no extractor runs, and completes it once one starts', async () => {
    const ids = await submit('absent', TASKS);
    // The scrape queue pauses (readiness details and the metric show it) ...
    await eventually(async () => (await fleets())[QUEUES.scrape] === 'paused', 15_000, 100);
    const metrics = await (await fetch(`http://127.0.0.1:${stack.metricsPorts.get('task-service')}/metrics`)).text();
    expect(metrics).toMatch(new RegExp(`trawl_queue_fleet_paused\\{queue="${QUEUES.scrape}"[^}]*\\} 1`));
    // ... and for a while nothing fails, nothing spins through attempts.
    await new Promise((r) => setTimeout(r, ABSENT_MS));
    for (const id of ids) {
      const job = await queue.getJob(id);
      expect(['waiting', 'delayed', 'prioritized']).toContain(await queue.getJobState(id));
      expect(job?.attemptsMade).toBe(0);
      const lookup = await callApi(stack, 'GET', `/extractTask/${encodeURIComponent(id)}`);
      // `delayed`: the few that were running when the outage was met, put back without an attempt.
      expect(['waiting', 'delayed']).toContain(lookup.body.data.status);
    }
    expect(await queue.getFailedCount()).toBe(0);
    expect(receiver.deliveries).toHaveLength(0);

    await stack.startService('extractor-scrape');
    const outcomes = await receiver.outcomesOf(ids, 30_000, 500);
    for (const [i, hooks] of outcomes.entries()) {
      expect(hooks).toHaveLength(1);
      expect(hooks[0].verified).toBe(true);
      expect(hooks[0].body).toMatchObject({
        event: 'task.completed',
        taskId: ids[i],
        status: 'completed',
        attemptsMade: 1,
      });
    }
    expect((await fleets())[QUEUES.scrape]).toBe('serving');
  }, 90_000);

  it(
    'fails a task, once, with SERVICE_UNAVAILABLE when its fleet stays away past TASK_FLEET_MAX_WAIT_MS',
    async () => {
      await stack.services.get('extractor-scrape')!.stop('SIGTERM');
      const [id] = await submit('gone', 1);
      const [hooks] = await receiver.outcomesOf([id], FLEET_MAX_WAIT_MS + 20_000, 1000);
      expect(hooks).toHaveLength(1);
      expect(hooks[0].verified).toBe(true);
      expect(hooks[0].body).toMatchObject({
        event: 'task.failed',
        taskId: id,
        status: 'failed',
        attemptsMade: 1,
        error: { code: 'SERVICE_UNAVAILABLE' },
      });
      expect(hooks[0].body.error.message).toContain('extractor-scrape');
      expect(hooks[0].body.stacktrace).toHaveLength(1);
      expect(await queue.getJobState(id)).toBe('failed');
      const lookup = await callApi(stack, 'GET', `/extractTask/${encodeURIComponent(id)}`);
      expect(lookup.body.data).toMatchObject({
        status: 'failed',
        attemptsMade: 1,
        error: { code: 'SERVICE_UNAVAILABLE' },
      });
    },
    FLEET_MAX_WAIT_MS + 60_000,
  );
});
