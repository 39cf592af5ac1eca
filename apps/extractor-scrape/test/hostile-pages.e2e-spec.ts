import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { MicroserviceOptions } from '@nestjs/microservices';
import type { NatsConnection } from '@nats-io/nats-core';
import { ExtractorScrapeEnv, loadEnv } from '@trawl/config';
import {
  QUEUE_GROUPS,
  SUBJECTS,
  TrawlError,
  type ScrapeEngine,
  type ScrapeRequestDto,
  type ScrapeResult,
} from '@trawl/contracts';
import { connectNats, MessagingClient, natsServerOptions } from '@trawl/messaging';
import { startLoopbackHttp, startNats, type LoopbackServer, type TestServer } from '@trawl/testing';
import { startOpsServer, type OpsServer } from '@trawl/telemetry';
import { Registry } from 'prom-client';
import { AppModule } from '../src/app.module.js';

// Pathological pages (issue 8 must-show 1). Each is served as text/html.
const HOSTILE: Record<string, string> = {
  // A few MB of tags that are never closed.
  unclosed: `<html><body>${'<div><span><p><a href="#"><b><i><table><tr><td>x'.repeat(60_000)}`,
  // 100k nested divs.
  nested: `<html><body>${'<div>'.repeat(100_000)}deep${'</div>'.repeat(100_000)}</body></html>`,
  // Megabytes of inline script.
  scripts: `<html><head><title>scripts</title></head><body><p>short</p>${`<script>var blob = "${'a'.repeat(1_000_000)}";</script>`.repeat(4)}</body></html>`,
  // <title> repeated, 1.4 MB (held the event loop for 80 s with the regex scan).
  titles: '<title>'.repeat(200_000),
  // Says it is an article (so main content asks Readability too), nested just inside Readability's limits: its
  // costliest shape (ADR 0023, "A second opinion").
  article: `<html><head><meta property="og:type" content="article"></head><body>${`${'<div>'.repeat(55)}${'deep, text, here. '.repeat(10)}${'</div>'.repeat(55)}`.repeat(38)}</body></html>`,
};
const ENGINES: ScrapeEngine[] = ['http', 'auto', 'browser'];
/** Codes a hostile page may end with: it fails its own task, clearly. */
const HOSTILE_CODES = ['PAGE_TOO_COMPLEX', 'CONTENT_TOO_LARGE', 'UPSTREAM_TIMEOUT'];

/**
 * A liveness prober on its own thread (its own event loop, so a blocked main thread cannot stop its clock): it GETs
 * /health/live every 100 ms with a 5 s timeout, as a kubelet would, and on 'stop' reports how many probes answered
 * 200 and how many did not.
 */
function startProber(url: string): { stop(): Promise<{ ok: number; failed: number }> } {
  const worker = new Worker(
    `
    const { parentPort, workerData } = require('node:worker_threads');
    const http = require('node:http');
    let ok = 0, failed = 0, stopping = false, inFlight = false;
    const probe = () => {
      if (stopping) return;
      inFlight = true;
      const req = http.get(workerData, { timeout: 5000 }, (res) => {
        res.resume();
        res.statusCode === 200 ? ok++ : failed++;
        inFlight = false;
        setTimeout(probe, 100);
      });
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', () => { failed++; inFlight = false; setTimeout(probe, 100); });
    };
    probe();
    parentPort.on('message', () => {
      stopping = true;
      const done = () => (inFlight ? setTimeout(done, 50) : parentPort.postMessage({ ok, failed }));
      done();
    });
    `,
    { eval: true, workerData: url },
  );
  return {
    stop: () =>
      new Promise((resolve) => {
        worker.once('message', (m: { ok: number; failed: number }) => {
          void worker.terminate();
          resolve(m);
        });
        worker.postMessage('stop');
      }),
  };
}

// Hostile pages cost one task, never the replica: extractor-scrape in-process on real NATS and Chromium.
describe('extractor-scrape: hostile pages beside a normal scrape (real NATS, real Chromium)', () => {
  let nats: TestServer;
  let site: LoopbackServer;
  let app: INestMicroservice;
  let ops: OpsServer;
  let nc: NatsConnection;
  let client: MessagingClient;

  // Main content (the default, said here explicitly) and the page's links: the DOM work of ADR 0023 on every page.
  const scrape = (req: Partial<ScrapeRequestDto> & { url: string }) =>
    client.send(
      SUBJECTS.scrapePage,
      { formats: ['markdown', 'links'], onlyMainContent: true, timeout: 30_000, ...req } as ScrapeRequestDto,
      { timeoutMs: 35_000 },
    );
  const outcome = (req: Partial<ScrapeRequestDto> & { url: string }) =>
    scrape(req).then(
      (r: ScrapeResult) => ({ ok: true as const, result: r }),
      (e: unknown) => ({ ok: false as const, error: e }),
    );

  beforeAll(async () => {
    nats = await startNats();
    site = await startLoopbackHttp((req, res) => {
      const name = (req.url ?? '/').slice(1);
      if (name === 'normal') {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(
          `<html><head><title>Normal</title></head><body><h1>Normal page</h1>${'<p>Plain server-rendered text. </p>'.repeat(20)}</body></html>`,
        );
      } else if (HOSTILE[name] !== undefined)
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(HOSTILE[name]);
      else res.writeHead(404).end();
    });
    const env = loadEnv(ExtractorScrapeEnv, {
      NATS_URL: nats.url,
      SSRF_ALLOW_HOSTS: '127.0.0.1',
      INSTANCE_ID: 'scrape-hostile-e2e',
      METRICS_PORT: '0',
      SCRAPE_WORK_BUDGET_MS: '3000',
    });
    app = await NestFactory.createMicroservice<MicroserviceOptions>(AppModule.forRoot(env), {
      ...natsServerOptions([nats.url], QUEUE_GROUPS.extractorScrape, { gracePeriodMs: 10 }),
      logger: false,
    });
    await app.listen();
    // The service's liveness endpoint, served by this process's event loop as in bootstrap (runNatsService).
    ops = await startOpsServer({
      port: 0,
      host: '127.0.0.1',
      registry: new Registry(),
      ready: () => Promise.resolve({ ok: true }),
    });
    nc = await connectNats([nats.url], 'scrape-hostile-e2e-client');
    client = new MessagingClient(nc);
  });

  afterAll(async () => {
    await nc?.close();
    await ops?.close();
    await app?.close();
    await site?.close();
    await nats?.stop();
  });

  const CASES = ENGINES.flatMap((engine) => Object.keys(HOSTILE).map((page) => [engine, page] as const));

  it.each(CASES)(
    'engine %s, page "%s": the hostile scrape ends its own task (a result or a clear code), a normal scrape beside it succeeds, liveness answers throughout',
    async (engine, page) => {
      const prober = startProber(`http://127.0.0.1:${ops.port}/health/live`);
      const hostile = outcome({ url: `${site.url}/${page}`, engine });
      const normal = await scrape({ url: `${site.url}/normal`, engine });
      const settled = await hostile;
      const liveness = await prober.stop();

      expect(normal.markdown).toContain('# Normal page');
      expect(normal.metadata.title).toBe('Normal');
      if (!settled.ok) {
        expect(settled.error).toBeInstanceOf(TrawlError);
        expect(HOSTILE_CODES).toContain((settled.error as TrawlError).code);
      }
      expect(liveness.failed).toBe(0);
      expect(liveness.ok).toBeGreaterThan(0);
      // The replica still serves after the hostile task.
      expect((await scrape({ url: `${site.url}/normal`, engine })).markdown).toContain('# Normal page');
    },
    120_000,
  );
});
