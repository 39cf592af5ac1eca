import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { Module, type INestMicroservice } from '@nestjs/common';
import { freePort, startNats, type TestServer } from '@trawl/testing';
import type { Telemetry } from '@trawl/telemetry';
import { runNatsService } from './nats-service.runtime.js';

@Module({})
class EmptyModule {}

describe('runNatsService: a NATS microservice on the one lifecycle', () => {
  let nats: TestServer;
  const signals = ['SIGTERM', 'SIGINT'] as const;
  const before = new Map(signals.map((s) => [s, process.listeners(s)]));
  beforeAll(async () => {
    nats = await startNats();
  });
  afterAll(async () => {
    await nats.stop();
  });
  afterEach(() => {
    for (const s of signals)
      for (const l of process.listeners(s)) if (!before.get(s)?.includes(l)) process.removeListener(s, l);
    jest.restoreAllMocks();
  });

  it("serves the app's readiness and mounts, and on SIGTERM closes the app the service's way", async () => {
    const order: string[] = [];
    jest.spyOn(process, 'exit').mockImplementation((() => void order.push('exit')) as never);
    const telemetry = { shutdown: async () => void order.push('telemetry') } as unknown as Telemetry;
    const port = await freePort();
    const apps: INestMicroservice[] = [];
    let ownReady = false;
    const { app } = await runNatsService({
      service: 'nats-runtime-test',
      queue: 'nats-runtime-test',
      env: { LOG_LEVEL: 'silent', INSTANCE_ID: 't-1', METRICS_PORT: port, NATS_URL: [nats.url] },
      telemetry,
      module: { module: EmptyModule },
      natsName: 'nats-runtime-test-t-1',
      gracePeriodMs: 1_000,
      ready: (a) => {
        apps.push(a);
        return { ok: ownReady, details: { own: ownReady ? 'up' : 'down' } };
      },
      mounts: async (a, logger) => {
        apps.push(a);
        expect(logger).toBeDefined();
        return [{ prefix: '/board', handle: (_req, res) => void res.writeHead(204).end() }];
      },
      onStop: () => order.push('onStop'),
      close: async (a) => {
        apps.push(a);
        order.push('close');
        await a.close();
      },
      startedFields: { workers: true },
    });
    const get = (path: string) => fetch(`http://127.0.0.1:${port}${path}`);
    expect((await get('/health/ready')).status).toBe(503);
    ownReady = true;
    expect(await (await get('/health/ready')).json()).toEqual({
      status: 'ok',
      details: { nats: 'connected', own: 'up' },
    });
    expect((await get('/board/queues')).status).toBe(204);

    process.emit('SIGTERM');
    const exited = new Promise<void>((resolve) => {
      const check = () => (order.includes('exit') ? resolve() : setImmediate(check));
      check();
    });
    await exited;
    expect(order).toEqual(['onStop', 'close', 'telemetry', 'exit']);
    // Every hook was handed the one app the runtime built and returned.
    expect(apps.length).toBeGreaterThanOrEqual(3);
    for (const a of apps) expect(a).toBe(app);
  });
});
