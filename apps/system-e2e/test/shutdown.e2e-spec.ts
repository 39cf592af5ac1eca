import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Queue } from 'bullmq';
import { QUEUES } from '@trawl/contracts';
import { queuePrefix } from '@trawl/tasks';
import { eventually, startLoopbackHttp, type LoopbackServer, type RunningProcess } from '@trawl/testing';
import { callApi, SIGNING_SECRET, startStack, type Stack } from './support/stack.js';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js';

const TASKS = 60;
const CONCURRENCY = 4;
/** How long a process may take to stop after SIGTERM: Kubernetes' default terminationGracePeriodSeconds. */
const TERMINATION_GRACE_MS = 30_000;

/** Sends SIGTERM and waits for the process to exit on its own; resolves with how it exited. */
async function terminate(proc: RunningProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  const { child } = proc;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null)
      resolve({ code: child.exitCode, signal: child.signalCode });
    else child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no exit within ${TERMINATION_GRACE_MS} ms of SIGTERM`)),
      TERMINATION_GRACE_MS,
    );
  });
  try {
    return await Promise.race([exited, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Issue 5, "must show" 4: a URL batch keeps going while extractor-scrape and task-service are replaced (SIGTERM to
 * the old process) in the middle of it, and every accepted task reaches exactly one final webhook. The page server
 * can hold requests (a gate), so each SIGTERM lands while the process has work in flight.
 */
describe('graceful shutdown mid-batch (processes, real Redis and NATS)', () => {
  let site: LoopbackServer;
  let receiver: WebhookReceiver;
  let stack: Stack;
  let gateOpen = true;
  let held: (() => void)[] = [];
  const strays: RunningProcess[] = [];

  const closeGate = () => (gateOpen = false);
  const openGate = () => {
    gateOpen = true;
    for (const release of held) release();
    held = [];
  };

  beforeAll(async () => {
    site = await startLoopbackHttp(async (req, res) => {
      if (!gateOpen) await new Promise<void>((resolve) => held.push(resolve));
      await new Promise((r) => setTimeout(r, 200));
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(
        `<!doctype html><html><head><title>${req.url}</title></head><body><h1>Page ${req.url}</h1></body></html>`,
      );
    });
    receiver = await startWebhookReceiver(SIGNING_SECRET);
    stack = await startStack(['gateway', 'webhook-dispatcher', 'extractor-scrape'], {
      SSRF_ALLOW_HOSTS: '127.0.0.1',
      TASK_SCRAPE_ENGINE: 'http',
      TASK_CONCURRENCY_SCRAPE: String(CONCURRENCY),
      WEBHOOK_RETRY_SCHEDULE: '100ms,100ms,100ms,100ms',
    });
    // At info level the first task-service logs when it starts stopping.
    await stack.startService('task-service', { LOG_LEVEL: 'info' });
  });

  afterAll(async () => {
    openGate();
    await Promise.all(strays.map((p) => p.stop()));
    await stack?.stop();
    await Promise.all([site?.close(), receiver?.close()]);
  });

  const delivered = () => new Set(receiver.deliveries.filter((d) => d.status === 200).map((d) => d.body?.taskId)).size;

  it('delivers exactly one completed outcome per task when extractor-scrape and task-service are replaced mid-batch', async () => {
    const oldScrape = stack.services.get('extractor-scrape')!;
    const oldTasks = stack.services.get('task-service')!;
    strays.push(oldScrape, oldTasks);

    // The batch starts; task-service's workers take CONCURRENCY jobs, all on the only extractor-scrape, and the
    // page server holds them.
    closeGate();
    const urls = Array.from({ length: TASKS }, (_, i) => `${site.url}/p/${i}`);
    const res = await callApi(stack, 'POST', '/extractTask/batch', {
      urls,
      webhook: `${receiver.url}/hook`,
      type: 'scrape',
    });
    expect(res.status).toBe(200);
    const ids: string[] = res.body.data.map((j: { id: string }) => j.id);
    expect(ids).toHaveLength(TASKS);
    await eventually(() => held.length === CONCURRENCY, 30_000);

    // Rolling update of extractor-scrape: the new one is ready, then the old one gets SIGTERM with pages in flight.
    await stack.startService('extractor-scrape', { INSTANCE_ID: 'extractor-scrape-new' });
    const scrapeExit = terminate(oldScrape);
    const scrapeTermAt = Date.now();
    openGate();

    // Mid-batch again: task-service holds CONCURRENCY active jobs when it gets SIGTERM; a new one is started.
    await eventually(() => delivered() >= TASKS / 2, 60_000);
    closeGate();
    await eventually(() => held.length === CONCURRENCY, 30_000);
    const tasksTermAt = Date.now();
    const tasksExit = terminate(oldTasks);
    const newTasks = stack.startService('task-service', { INSTANCE_ID: 'task-service-new' });
    // The held pages are answered once the old task-service has begun stopping, so it cannot take a job before.
    await eventually(() => oldTasks.output().includes('shutting down'), 30_000);
    openGate();
    await newTasks;

    const outcomes = await receiver.outcomesOf(ids, 90_000, 2000);
    for (const [i, deliveries] of outcomes.entries()) {
      expect(deliveries).toHaveLength(1);
      expect(deliveries[0].verified).toBe(true);
      expect(deliveries[0].body).toMatchObject({
        event: 'task.completed',
        status: 'completed',
        taskId: ids[i],
        data: { sourceURL: urls[i], rawStatus: 200 },
      });
    }
    const bodies = outcomes.map(([d]) => d.body);
    // The old extractor answered the pages it held when it got SIGTERM; the new one served the rest.
    expect(bodies.some((b) => b.data.edgeId === 'extractor-scrape-e2e' && b.finishedOn >= scrapeTermAt)).toBe(true);
    expect(bodies.some((b) => b.data.edgeId === 'extractor-scrape-new')).toBe(true);

    // Both old processes stopped on their own (no SIGKILL), and no job is left behind in any state but completed.
    expect(await scrapeExit).toEqual({ code: 0, signal: null });
    expect(await tasksExit).toEqual({ code: 0, signal: null });
    const queue = new Queue(QUEUES.scrape, { connection: { url: stack.redisUrl }, prefix: queuePrefix(QUEUES.scrape) });
    try {
      const counts = await queue.getJobCounts();
      expect(counts).toMatchObject({ completed: TASKS, active: 0, waiting: 0, delayed: 0, failed: 0 });
      // The stopping task-service took no job after SIGTERM (it finished the ones it held); the new one ran the rest.
      const jobs = await queue.getJobs(['completed']);
      const byOld = jobs.filter((j) => j.processedBy === 'task-service-e2e');
      const byNew = jobs.filter((j) => j.processedBy === 'task-service-new');
      expect(byOld.length + byNew.length).toBe(TASKS);
      expect(byOld.filter((j) => (j.processedOn ?? 0) >= tasksTermAt)).toEqual([]);
      expect(byNew.length).toBeGreaterThan(0);
    } finally {
      await queue.close();
    }
  }, 150_000);
});
