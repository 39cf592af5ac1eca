import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Queue } from 'bullmq';
import { Webhook } from 'standardwebhooks';
import { QUEUES } from '@trawl/contracts';
import { queuePrefix } from '@trawl/tasks';
import { eventually, startLoopbackHttp, type LoopbackServer } from '@trawl/testing';
import { callApi, SIGNING_SECRET, startStack, type ServiceName, type Stack } from './support/stack.js';
import { readWebhook } from './support/webhook-receiver.js';

const TASKS = 40;
const CONCURRENCY = 4;
/** Each page is answered after this long, so a batch has pages in flight for a few seconds. */
const PAGE_DELAY_MS = 250;
/** The webhook POST deadline; the dispatcher's ack wait (how long a dead dispatcher's outcomes wait) is 30 s more. */
const WEBHOOK_TIMEOUT_MS = 5000;
/** How long NATS or Redis stays away once every service has noticed (a restart on Kubernetes takes longer). */
const OUTAGE_MS = 2000;
const SERVICES: ServiceName[] = ['gateway', 'task-service', 'webhook-dispatcher', 'extractor-scrape'];

interface Hook {
  /** The `webhook-id` header. */
  id: string;
  taskId: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON
  body: any;
  verified: boolean;
  /** What this receiver answered (0 while held). */
  status: number;
}

/**
 * A webhook receiver on loopback that verifies each Standard Webhooks signature (standardwebhooks library) and answers
 * 200, or, while `holding`, keeps the request open until `release(status)`.
 */
async function startReceiver() {
  const wh = new Webhook(SIGNING_SECRET);
  const hooks: Hook[] = [];
  let held: { hook: Hook; answer: (status: number) => void }[] = [];
  const state = { holding: false };
  const server: LoopbackServer = await startLoopbackHttp(async (req, res, body) => {
    const { id, body: parsed, verified } = readWebhook(wh, req, body);
    const hook: Hook = {
      id,
      taskId: (parsed as { taskId?: string }).taskId ?? '',
      body: parsed,
      verified,
      status: 0,
    };
    hooks.push(hook);
    const status = state.holding ? await new Promise<number>((answer) => held.push({ hook, answer })) : 200;
    hook.status = status;
    res.statusCode = status;
    res.end();
  });
  return {
    url: server.url,
    hooks,
    state,
    held: () => held.map((h) => h.hook),
    /** Answers every held request with `status` (to a dispatcher that may be gone). */
    release(status: number) {
      for (const h of held) {
        h.hook.status = status;
        h.answer(status);
      }
      held = [];
    },
    /** Tasks (of `ids`) with an accepted (2xx) delivery. */
    delivered: (ids: Set<string>) =>
      new Set(hooks.filter((h) => h.status >= 200 && h.status < 300 && ids.has(h.taskId)).map((h) => h.taskId)).size,
    close: () => server.close(),
  };
}

/**
 * "Loses nothing when parts fail": URL batches through the whole system (every service a process, real Redis and NATS
 * with JetStream) while nats-server restarts, the webhook dispatcher is killed mid-delivery, and Redis restarts. Each
 * accepted task must reach its final webhook, signed; every job has exactly one outcome (one webhook-id, one state:
 * a repeated delivery of the same outcome is at-least-once, allowed), and GET /extractTask/{id} agrees with it.
 */
describe('losing nothing when NATS, the dispatcher or Redis fail mid-batch (processes, real Redis and NATS)', () => {
  let site: LoopbackServer;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let stack: Stack;
  let queue: Queue;

  beforeAll(async () => {
    site = await startLoopbackHttp(async (req, res) => {
      await new Promise((r) => setTimeout(r, PAGE_DELAY_MS));
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(
        `<!doctype html><html><head><title>${req.url}</title></head><body><h1>Page ${req.url}</h1></body></html>`,
      );
    });
    receiver = await startReceiver();
    stack = await startStack(SERVICES, {
      SSRF_ALLOW_HOSTS: '127.0.0.1',
      TASK_SCRAPE_ENGINE: 'http',
      TASK_CONCURRENCY_SCRAPE: String(CONCURRENCY),
      WEBHOOK_RETRY_SCHEDULE: '200ms,200ms,200ms,500ms,1s,1s,1s,1s,1s,1s',
      WEBHOOK_RETRY_JITTER: '0',
      WEBHOOK_TIMEOUT_MS: String(WEBHOOK_TIMEOUT_MS),
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
    receiver?.release(503);
    await queue?.close();
    await stack?.stop();
    await Promise.all([site?.close(), receiver?.close()]);
  });

  /** Submits a URL batch of TASKS pages; returns the job ids. */
  async function submitBatch(name: string): Promise<string[]> {
    const urls = Array.from({ length: TASKS }, (_, i) => `${site.url}/${name}/${i}`);
    const res = await callApi(stack, 'POST', '/extractTask/batch', {
      urls,
      webhook: `${receiver.url}/${name}`,
      type: 'scrape',
      timeout: 5000,
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(TASKS);
    return res.body.data.map((j: { id: string }) => j.id);
  }

  /** /health/ready of a service: its METRICS_PORT (the gateway: its PORT). */
  async function ready(name: ServiceName): Promise<boolean> {
    const res = await fetch(`http://127.0.0.1:${stack.metricsPorts.get(name)}/health/ready`).catch(() => undefined);
    return res?.ok ?? false;
  }

  async function expectReadiness(names: ServiceName[], want: boolean, what: string): Promise<void> {
    await eventually(async () => (await Promise.all(names.map(ready))).every((r) => r === want), 15_000, 100).catch(
      async (e: unknown) => {
        const now = await Promise.all(names.map(async (n) => `${n}: ${(await ready(n)) ? 'ready' : 'not ready'}`));
        throw new Error(`${what}: ${now.join(', ')} (${String(e)})`);
      },
    );
  }

  /**
   * Waits for every task's accepted delivery (then a moment for a late duplicate), and checks that each task has one
   * outcome: every delivery of it signed, with one webhook-id and the same body, completed with its page, and that
   * GET /extractTask/{id} answers that record. No job of the batch is left in any state but completed.
   */
  async function expectOneOutcomeEach(ids: string[], name: string): Promise<Hook[][]> {
    const idSet = new Set(ids);
    await eventually(() => receiver.delivered(idSet) === ids.length, 60_000, 100).catch((e: unknown) => {
      const logs = [...stack.services.entries()].map(([n, p]) => `--- ${n}\n${p.output().slice(-2000)}`).join('\n');
      throw new Error(
        `${ids.length - receiver.delivered(idSet)} of ${ids.length} tasks have no outcome: ${String(e)}\n${logs}`,
      );
    });
    await new Promise((r) => setTimeout(r, 1500));
    const outcomes = ids.map((id) => receiver.hooks.filter((h) => h.taskId === id));
    for (const [i, hooks] of outcomes.entries()) {
      const answered = hooks.filter((h) => h.status !== 0);
      expect(answered.every((h) => h.verified)).toBe(true);
      // One outcome per job: a repeated delivery carries the same webhook-id and the same record.
      expect(new Set(answered.map((h) => h.id)).size).toBe(1);
      for (const h of answered) expect(h.body).toEqual(answered[0].body);
      const { event, ...record } = answered[0].body;
      expect(event).toBe('task.completed');
      expect(record).toMatchObject({
        taskId: ids[i],
        status: 'completed',
        data: { sourceURL: `${site.url}/${name}/${i}`, rawStatus: 200 },
      });
      const lookup = await callApi(stack, 'GET', `/extractTask/${encodeURIComponent(ids[i])}`);
      expect(lookup.status).toBe(200);
      expect(lookup.body.data).toEqual(record);
      expect(await queue.getJobState(ids[i])).toBe('completed');
    }
    // Outcomes of different jobs never share a webhook-id.
    expect(new Set(outcomes.map((hooks) => hooks[0].id)).size).toBe(ids.length);
    return outcomes;
  }

  it('delivers one completed outcome per task when nats-server restarts mid-batch (same port, same JetStream store), and readiness shows the outage', async () => {
    const ids = await submitBatch('nats');
    const idSet = new Set(ids);
    await eventually(() => receiver.delivered(idSet) >= TASKS / 4, 30_000, 20);
    let deliveredWhenDown = 0;
    await stack.restartNats(async () => {
      deliveredWhenDown = receiver.delivered(idSet);
      await expectReadiness(SERVICES, false, 'every service reports NATS down');
      await new Promise((r) => setTimeout(r, OUTAGE_MS));
    });
    // Mid-batch: tasks were still to run when NATS went away.
    expect(deliveredWhenDown).toBeLessThan(TASKS);
    await expectReadiness(SERVICES, true, 'every service ready again after NATS returned');
    await expectOneOutcomeEach(ids, 'nats');
  }, 90_000);

  it('delivers every outcome, with the same webhook-id, when the webhook-dispatcher is SIGKILLed holding deliveries and started again', async () => {
    receiver.state.holding = true;
    const ids = await submitBatch('dispatcher');
    await eventually(() => receiver.held().length >= 5, 30_000, 10);
    const dispatcher = stack.services.get('webhook-dispatcher')!;
    await dispatcher.stop('SIGKILL');
    const cut = receiver.held();
    expect(cut.length).toBeGreaterThanOrEqual(5);
    // The requests of the dead dispatcher are answered to no one.
    receiver.state.holding = false;
    receiver.release(503);
    await stack.startService('webhook-dispatcher', { INSTANCE_ID: 'webhook-dispatcher-again' });
    const outcomes = await expectOneOutcomeEach(ids, 'dispatcher');
    // Each delivery cut off by the kill came again, with the same webhook-id, and was accepted.
    for (const h of cut) {
      const again = outcomes[ids.indexOf(h.taskId)].filter((d) => d.status === 200);
      expect(again.length).toBeGreaterThan(0);
      expect(again.every((d) => d.id === h.id)).toBe(true);
    }
  }, 90_000);

  it('delivers one completed outcome per task when Redis restarts mid-batch (AOF persistence), and readiness shows the outage', async () => {
    const ids = await submitBatch('redis');
    const idSet = new Set(ids);
    await eventually(() => receiver.delivered(idSet) >= TASKS / 4, 30_000, 20);
    // The gateway (keys, limits) and task-service (BullMQ) need Redis.
    let deliveredWhenDown = 0;
    await stack.restartRedis(async () => {
      deliveredWhenDown = receiver.delivered(idSet);
      await expectReadiness(['gateway', 'task-service'], false, 'Redis users report it down');
      await new Promise((r) => setTimeout(r, OUTAGE_MS));
    });
    // Mid-batch: tasks were still to run when Redis went away.
    expect(deliveredWhenDown).toBeLessThan(TASKS);
    await expectReadiness(SERVICES, true, 'every service ready again after Redis returned');
    await expectOneOutcomeEach(ids, 'redis');
  }, 90_000);
});
