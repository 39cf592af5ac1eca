import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { QUEUES, SUBJECTS } from '@trawl/contracts';
import { eventually, type LoopbackServer, metricSample, startLoopbackHttp } from '@trawl/testing';
import { callApi, SIGNING_SECRET, startStack, type ServiceName, type Stack } from './support/stack.js';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js';

const API = '/api/openapi/v1';
/** How long the page server holds a /slow page: long enough for the pool's 1 s gauge sampling to see it busy. */
const SLOW_PAGE_MS = 3000;

/**
 * Issue 5, "must show" 2: after real traffic, each service's /metrics shows its families moving: the gateway's HTTP
 * requests by route and status and its NATS requests by subject, task-service's queue depth, job outcomes and NATS
 * requests to the extractors, extractor-scrape's browser pool, webhook-dispatcher's deliveries by outcome. Every
 * service runs as a process on real Redis and NATS.
 */
describe('metrics of every service after traffic (processes, real Redis and NATS)', () => {
  let site: LoopbackServer;
  let receiver: WebhookReceiver;
  let stack: Stack;

  beforeAll(async () => {
    site = await startLoopbackHttp(async (req, res) => {
      if (req.url?.startsWith('/slow')) await new Promise((r) => setTimeout(r, SLOW_PAGE_MS));
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(
        `<!doctype html><html><head><title>${req.url}</title></head><body><h1>Page ${req.url}</h1></body></html>`,
      );
    });
    // The first delivery of each outcome is refused, so the dispatcher both retries and delivers.
    receiver = await startWebhookReceiver(SIGNING_SECRET, (attempt) => (attempt === 1 ? 503 : 200));
    stack = await startStack(['gateway', 'task-service', 'webhook-dispatcher', 'extractor-scrape'], {
      SSRF_ALLOW_HOSTS: '127.0.0.1',
      TASK_SCRAPE_ENGINE: 'http',
      WEBHOOK_RETRY_SCHEDULE: '100ms,100ms,100ms',
    });
  });

  afterAll(async () => {
    await stack?.stop();
    await Promise.all([site?.close(), receiver?.close()]);
  });

  const metricsOf = async (name: ServiceName) => {
    const res = await fetch(`http://127.0.0.1:${stack.metricsPorts.get(name)}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    return res.text();
  };

  it('shows browser pool size, busy pages and wait queue on extractor-scrape while scrapes run', async () => {
    // Four slow browser scrapes at once on one browser of two pages: two render, two wait.
    const scrapes = Promise.all(
      [1, 2, 3, 4].map((i) =>
        callApi(stack, 'POST', '/scrape', { url: `${site.url}/slow/${i}`, formats: ['markdown'] }),
      ),
    );
    const seen = await eventually(
      async () => {
        const text = await metricsOf('extractor-scrape');
        const busy = metricSample(text, 'trawl_browser_pool_busy_pages') ?? 0;
        const waiting = metricSample(text, 'trawl_browser_pool_wait_queue_length') ?? 0;
        return busy >= 1 && waiting >= 1 ? text : undefined;
      },
      30_000,
      200,
    );
    expect(metricSample(seen, 'trawl_browser_pool_browsers', { service: 'extractor-scrape' })).toBeGreaterThanOrEqual(
      1,
    );
    for (const res of await scrapes) expect(res.status).toBe(200);
    // Once they are done the pool is idle again.
    await eventually(async () => {
      const text = await metricsOf('extractor-scrape');
      return (
        metricSample(text, 'trawl_browser_pool_busy_pages') === 0 &&
        metricSample(text, 'trawl_browser_pool_wait_queue_length') === 0
      );
    }, 15_000);
  }, 60_000);

  it('shows HTTP requests by route and status and NATS requests by subject on the gateway', async () => {
    const scrape = { method: 'POST', route: `${API}/scrape`, status: '200', service: 'gateway' };
    const lookup404 = { method: 'GET', route: `${API}/extractTask/:jobId`, status: '404' };
    const series: [string, Record<string, string>][] = [
      ['trawl_http_requests_total', scrape],
      ['trawl_http_request_duration_seconds_count', scrape],
      ['trawl_http_request_duration_seconds_bucket', { ...scrape, le: '+Inf' }],
      ['trawl_http_requests_total', lookup404],
      ['trawl_http_request_duration_seconds_count', lookup404],
      ['trawl_nats_request_duration_seconds_count', { subject: SUBJECTS.scrapePage, outcome: 'ok' }],
      ['trawl_nats_request_duration_seconds_count', { subject: SUBJECTS.taskGet, outcome: 'error' }],
    ];
    const read = async () => {
      const text = await metricsOf('gateway');
      return series.map(([name, labels]) => metricSample(text, name, labels) ?? 0);
    };
    const before = await read();

    expect((await callApi(stack, 'POST', '/scrape', { url: `${site.url}/fast` })).status).toBe(200);
    expect((await callApi(stack, 'GET', '/extractTask/scrape_00000000-0000-4000-8000-000000000000')).status).toBe(404);

    const after = await read();
    // Each series moved by exactly the one request of its kind.
    expect(after.map((n, i) => n - before[i])).toEqual(series.map(() => 1));
  });

  it('shows queue depth, job outcomes and extractor requests on task-service and deliveries on webhook-dispatcher after a batch', async () => {
    const res = await callApi(stack, 'POST', '/extractTask/batch', {
      urls: [`${site.url}/batch/1`, `${site.url}/batch/2`, 'http://10.0.0.1/private'],
      webhook: `${receiver.url}/hook`,
      type: 'scrape',
    });
    expect(res.status).toBe(200);
    const ids: string[] = res.body.data.map((j: { id: string }) => j.id);
    const outcomes = await receiver.outcomesOf(ids);
    expect(outcomes.map((d) => d.map((x) => x.status))).toEqual([
      [503, 200],
      [503, 200],
      [503, 200],
    ]);

    const gateway = await metricsOf('gateway');
    expect(
      metricSample(gateway, 'trawl_http_requests_total', { route: `${API}/extractTask/batch`, status: '200' }),
    ).toBe(1);
    expect(
      metricSample(gateway, 'trawl_nats_request_duration_seconds_count', {
        subject: SUBJECTS.taskSubmit,
        outcome: 'ok',
      }),
    ).toBe(1);

    const tasks = await metricsOf('task-service');
    const scrapeQueue = { queue: QUEUES.scrape, service: 'task-service' };
    expect(metricSample(tasks, 'trawl_queue_depth', { ...scrapeQueue, state: 'completed' })).toBe(2);
    expect(metricSample(tasks, 'trawl_queue_depth', { ...scrapeQueue, state: 'failed' })).toBe(1);
    expect(metricSample(tasks, 'trawl_queue_depth', { ...scrapeQueue, state: 'waiting' })).toBe(0);
    expect(metricSample(tasks, 'trawl_queue_depth', { ...scrapeQueue, state: 'active' })).toBe(0);
    expect(metricSample(tasks, 'trawl_queue_depth', { queue: QUEUES.batch, state: 'waiting' })).toBe(0);
    expect(metricSample(tasks, 'trawl_queue_jobs_total', { ...scrapeQueue, outcome: 'completed' })).toBe(2);
    expect(metricSample(tasks, 'trawl_queue_jobs_total', { ...scrapeQueue, outcome: 'failed' })).toBe(1);
    expect(
      metricSample(tasks, 'trawl_nats_request_duration_seconds_count', { subject: SUBJECTS.scrapePage, outcome: 'ok' }),
    ).toBe(2);
    expect(
      metricSample(tasks, 'trawl_nats_request_duration_seconds_count', {
        subject: SUBJECTS.scrapePage,
        outcome: 'error',
      }),
    ).toBe(1);

    const dispatcher = await metricsOf('webhook-dispatcher');
    const webhook = { service: 'webhook-dispatcher' };
    expect(metricSample(dispatcher, 'trawl_webhook_deliveries_total', { ...webhook, outcome: 'retry' })).toBe(3);
    expect(metricSample(dispatcher, 'trawl_webhook_deliveries_total', { ...webhook, outcome: 'delivered' })).toBe(3);
    expect(metricSample(dispatcher, 'trawl_webhook_delivery_duration_seconds_count', { outcome: 'delivered' })).toBe(3);
  });
});
