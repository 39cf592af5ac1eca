import { afterEach, describe, expect, it } from '@jest/globals';
import { startOpsServer, type OpsServer, type Readiness } from './ops.server.js';
import { TrawlMetrics } from './trawl-metrics.service.js';

describe('startOpsServer', () => {
  let server: OpsServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function start(ready: () => Promise<Readiness>, metrics = new TrawlMetrics({ service: 'extractor-maps' })) {
    server = await startOpsServer({
      port: 0,
      host: '127.0.0.1',
      registry: metrics.registry,
      ready,
      readyTimeoutMs: 200,
    });
    return (path: string) => fetch(`http://127.0.0.1:${server?.port}${path}`);
  }

  it('serves Prometheus text on /metrics with default process metrics and the Trawl families in use', async () => {
    const metrics = new TrawlMetrics({ service: 'extractor-maps' });
    metrics.nats.observer('extract.maps.v1', 'ok', 120);
    const get = await start(async () => ({ ok: true }), metrics);

    const res = await get('/metrics');
    const body = await res.text();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    expect(body).toContain('process_cpu_user_seconds_total');
    expect(body).toMatch(
      /trawl_nats_request_duration_seconds_count\{[^}]*subject="extract.maps.v1"[^}]*outcome="ok"[^}]*\} 1/,
    );
    expect(body).toContain('service="extractor-maps"');
  });

  it('answers /health/live with 200 whatever readiness says', async () => {
    const get = await start(async () => ({ ok: false }));
    const res = await get('/health/live');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('answers /health/ready with 200 and the details when ready, 503 when not', async () => {
    let ok = true;
    const get = await start(async () => ({ ok, details: { nats: ok ? 'connected' : 'reconnecting' } }));

    const up = await get('/health/ready');
    expect(up.status).toBe(200);
    expect(await up.json()).toEqual({ status: 'ok', details: { nats: 'connected' } });
    ok = false;
    const down = await get('/health/ready');
    expect(down.status).toBe(503);
    expect(await down.json()).toEqual({ status: 'unavailable', details: { nats: 'reconnecting' } });
  });

  it('treats a readiness check that throws or never answers as not ready', async () => {
    const throwing = await start(async () => {
      throw new Error('redis down');
    });
    const res = await throwing('/health/ready');
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ status: 'unavailable', details: { error: 'redis down' } });
    await server?.close();

    const hanging = await start(() => new Promise<Readiness>(() => undefined));
    const slow = await hanging('/health/ready');
    expect(slow.status).toBe(503);
    expect(await slow.json()).toEqual({ status: 'unavailable', details: { error: 'readiness check timed out' } });
  });

  it('answers 404 for unknown paths and 405 for other methods', async () => {
    const get = await start(async () => ({ ok: true }));
    expect((await get('/nope')).status).toBe(404);
    const post = await fetch(`http://127.0.0.1:${server?.port}/metrics`, { method: 'POST' });
    expect(post.status).toBe(405);
  });

  it('hands paths under a mount to its handler, any method, and closes it with the server', async () => {
    let closed = false;
    server = await startOpsServer({
      port: 0,
      host: '127.0.0.1',
      registry: new TrawlMetrics({ service: 'task-service' }).registry,
      ready: async () => ({ ok: true }),
      mounts: [
        {
          prefix: '/admin/queues',
          handle: (req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end(`${req.method} ${req.url}`),
          close: async () => void (closed = true),
        },
      ],
    });
    const url = (path: string) => `http://127.0.0.1:${server?.port}${path}`;
    expect(await (await fetch(url('/admin/queues/api/queues?x=1'))).text()).toBe('GET /admin/queues/api/queues?x=1');
    expect(await (await fetch(url('/admin/queues'), { method: 'PUT' })).text()).toBe('PUT /admin/queues');
    expect((await fetch(url('/admin/queuesx'))).status).toBe(404);
    expect((await fetch(url('/health/live'))).status).toBe(200);
    await server.close();
    server = undefined;
    expect(closed).toBe(true);
  });
});
