import { describe, expect, it } from '@jest/globals';
import type { Registry } from 'prom-client';
import { TrawlMetrics } from './trawl-metrics.service.js';

/** The value of the sample `name` whose labels include `labels`, whatever order the exposition prints them in. */
async function sample(registry: Registry, name: string, labels: Record<string, string>): Promise<number | undefined> {
  for (const family of await registry.getMetricsAsJSON()) {
    for (const v of family.values as {
      metricName?: string;
      labels: Record<string, string | number>;
      value: number;
    }[]) {
      const sampleName = v.metricName ?? family.name;
      if (sampleName === name && Object.entries(labels).every(([k, want]) => String(v.labels[k]) === want))
        return v.value;
    }
  }
  return undefined;
}

describe('TrawlMetrics', () => {
  it('registers a family only once a service uses it', async () => {
    const metrics = new TrawlMetrics({ service: 'gateway', defaultMetrics: false });
    metrics.http.observe({ method: 'POST', route: '/api/openapi/v1/extract', status: 200 }, 0.3);
    const names = (await metrics.registry.getMetricsAsJSON()).map((m) => m.name).sort();
    expect(names).toEqual(['trawl_http_request_duration_seconds', 'trawl_http_requests_total']);
  });

  it('counts HTTP requests by method, route and status, labels them with the service, and records latency', async () => {
    const metrics = new TrawlMetrics({ service: 'gateway', defaultMetrics: false });
    metrics.http.observe({ method: 'POST', route: '/extract', status: 200 }, 0.3);
    metrics.http.observe({ method: 'POST', route: '/extract', status: 200 }, 0.5);
    metrics.http.observe({ method: 'POST', route: '/extract', status: 504 }, 30);
    const ok = { method: 'POST', route: '/extract', status: '200', service: 'gateway' };
    expect(await sample(metrics.registry, 'trawl_http_requests_total', ok)).toBe(2);
    expect(await sample(metrics.registry, 'trawl_http_request_duration_seconds_sum', { ...ok, status: '504' })).toBe(
      30,
    );
  });

  it('takes NATS latencies in milliseconds, as MessagingClient reports them, and stores seconds', async () => {
    const metrics = new TrawlMetrics({ service: 'gateway', defaultMetrics: false });
    metrics.nats.observer('task.submit.v1', 'timeout', 1500);
    const labels = { subject: 'task.submit.v1', outcome: 'timeout' };
    expect(await sample(metrics.registry, 'trawl_nats_request_duration_seconds_sum', labels)).toBe(1.5);
  });

  it('fills queue depth at scrape time from the registered readers', async () => {
    const metrics = new TrawlMetrics({ service: 'task-service', defaultMetrics: false });
    let waiting = 3;
    metrics.queue.addDepthReader(async () => ({ 'extract-url': { waiting, active: 1 } }));
    metrics.queue.jobs.inc({ queue: 'extract-url', outcome: 'completed' });

    const depth = { queue: 'extract-url', state: 'waiting' };
    expect(await sample(metrics.registry, 'trawl_queue_depth', depth)).toBe(3);
    waiting = 7;
    expect(await sample(metrics.registry, 'trawl_queue_depth', depth)).toBe(7);
    expect(
      await sample(metrics.registry, 'trawl_queue_jobs_total', { queue: 'extract-url', outcome: 'completed' }),
    ).toBe(1);
  });

  it("reports a NATS server's refused and abandoned requests from its running totals, at scrape time", async () => {
    const metrics = new TrawlMetrics({ service: 'x', defaultMetrics: false });
    const totals = { refusedBusy: 0, abandoned: 0 };
    metrics.natsServer.observe(() => totals);
    totals.refusedBusy = 3;
    totals.abandoned = 1;
    expect(await sample(metrics.registry, 'trawl_nats_server_requests_total', { outcome: 'refused_busy' })).toBe(3);
    totals.abandoned = 4;
    expect(await sample(metrics.registry, 'trawl_nats_server_requests_total', { outcome: 'abandoned' })).toBe(4);
    expect(await sample(metrics.registry, 'trawl_nats_server_requests_total', { outcome: 'refused_busy' })).toBe(3);
  });

  it('exposes browser pool gauges and webhook delivery outcomes', async () => {
    const metrics = new TrawlMetrics({ service: 'x', defaultMetrics: false });
    metrics.browserPool.browsers.set(2);
    metrics.browserPool.busyPages.set(5);
    metrics.browserPool.waitQueue.set(1);
    metrics.webhook.deliveries.inc({ outcome: 'delivered' });
    metrics.webhook.duration.observe({ outcome: 'delivered' }, 0.2);
    expect(await sample(metrics.registry, 'trawl_browser_pool_browsers', {})).toBe(2);
    expect(await sample(metrics.registry, 'trawl_browser_pool_busy_pages', {})).toBe(5);
    expect(await sample(metrics.registry, 'trawl_browser_pool_wait_queue_length', {})).toBe(1);
    expect(await sample(metrics.registry, 'trawl_webhook_deliveries_total', { outcome: 'delivered' })).toBe(1);
  });
});
