import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { freePort } from '@trawl/testing';
import type { Telemetry } from '@trawl/telemetry';
import { NEST_LOG_LEVELS } from './nest-log-levels.constants.js';
import { runService } from './service.runtime.js';

describe('runService: the one lifecycle of every process', () => {
  const signals = ['SIGTERM', 'SIGINT'] as const;
  const before = new Map(signals.map((s) => [s, process.listeners(s)]));
  afterEach(() => {
    // Only the handlers this test added go.
    for (const s of signals)
      for (const l of process.listeners(s)) if (!before.get(s)?.includes(l)) process.removeListener(s, l);
    jest.restoreAllMocks();
  });

  it('serves the ops server with the service readiness and mounts, and on SIGTERM stops, closes, flushes, exits 0', async () => {
    const order: string[] = [];
    const exit = jest.spyOn(process, 'exit').mockImplementation((() => {
      order.push('exit');
    }) as never);
    const telemetry = { shutdown: async () => void order.push('telemetry') } as unknown as Telemetry;
    let ready = false;
    const port = await freePort();
    const { ops } = await runService({
      service: 'test-service',
      env: { LOG_LEVEL: 'silent', INSTANCE_ID: 'test-1', METRICS_PORT: port },
      telemetry,
      start: async ({ nestLogger, metrics }) => {
        expect(nestLogger).toBeDefined();
        expect(metrics.registry).toBeDefined();
        return {
          ready: () => ({ ok: ready, details: { thing: ready ? 'up' : 'down' } }),
          mounts: [{ prefix: '/extra', handle: (_req, res) => void res.writeHead(204).end() }],
          stop: async () => void order.push('stop'),
          started: { message: 'test-service started' },
        };
      },
    });
    expect(ops?.port).toBe(port);
    const get = (path: string) => fetch(`http://127.0.0.1:${port}${path}`);
    expect((await get('/health/ready')).status).toBe(503);
    ready = true;
    expect(await (await get('/health/ready')).json()).toEqual({ status: 'ok', details: { thing: 'up' } });
    expect((await get('/extra/x')).status).toBe(204);

    process.emit('SIGTERM');
    process.emit('SIGTERM'); // once only
    await new Promise((r) => setTimeout(r, 100));
    expect(order).toEqual(['stop', 'telemetry', 'exit']);
    expect(exit).toHaveBeenCalledWith(0);
    await expect(get('/health/live')).rejects.toThrow();
  });

  it('binds its ops server (/metrics, readiness details) to loopback unless OPS_HOST says otherwise', async () => {
    const telemetry = { shutdown: async () => undefined } as unknown as Telemetry;
    const start = async () => ({
      ready: () => ({ ok: false, details: { redis: 'connect ECONNREFUSED 10.1.2.3:6379' } }),
      stop: async () => undefined,
      started: { message: 'up' },
    });
    const local = await runService({
      service: 'loopback-ops',
      env: { LOG_LEVEL: 'silent', INSTANCE_ID: 'l-1', METRICS_PORT: await freePort() },
      telemetry,
      start,
    });
    const wide = await runService({
      service: 'wide-ops',
      env: { LOG_LEVEL: 'silent', INSTANCE_ID: 'w-1', METRICS_PORT: await freePort(), OPS_HOST: '0.0.0.0' },
      telemetry,
      start,
    });
    try {
      // 127.0.0.2 is this machine too, but not the address the default binds: a connection there is refused.
      expect((await fetch(`http://127.0.0.1:${local.ops?.port}/metrics`)).status).toBe(200);
      await expect(fetch(`http://127.0.0.2:${local.ops?.port}/metrics`)).rejects.toThrow();
      await expect(fetch(`http://127.0.0.2:${local.ops?.port}/health/ready`)).rejects.toThrow();
      // Told to (a container), it answers on every address.
      expect((await fetch(`http://127.0.0.2:${wide.ops?.port}/health/ready`)).status).toBe(503);
    } finally {
      await local.ops?.close();
      await wide.ops?.close();
    }
  });

  it('runs no ops server without METRICS_PORT (the gateway serves its own)', async () => {
    const telemetry = { shutdown: async () => undefined } as unknown as Telemetry;
    const { ops } = await runService({
      service: 'gateway-like',
      env: { LOG_LEVEL: 'silent', INSTANCE_ID: 'g-1' },
      telemetry,
      start: async () => ({ stop: async () => undefined, started: { message: 'up' } }),
    });
    expect(ops).toBeUndefined();
  });

  it('maps every LOG_LEVEL to Nest levels, silent to none', () => {
    expect(NEST_LOG_LEVELS.info).toEqual(['fatal', 'error', 'warn', 'log']);
    expect(NEST_LOG_LEVELS.trace).toContain('verbose');
    expect(NEST_LOG_LEVELS.silent).toBe(false);
  });
});
