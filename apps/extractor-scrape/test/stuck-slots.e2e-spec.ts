import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { MicroserviceOptions } from '@nestjs/microservices';
import type { NatsConnection } from '@nats-io/nats-core';
import { BrowserPool } from '@trawl/browser-pool';
import { ExtractorScrapeEnv, loadEnv } from '@trawl/config';
import {
  QUEUE_GROUPS,
  SUBJECTS,
  type RenderPageRequestDto,
  type ScrapePageRequestDto,
  type ScrapeResult,
} from '@trawl/contracts';
import { connectNats, MessagingClient, natsServerOptions } from '@trawl/messaging';
import { startLoopbackHttp, startNats, type LoopbackServer, type TestServer } from '@trawl/testing';
import { AppModule } from '../src/app.module.js';
import { poolReadiness } from '../src/pool-readiness.policy.js';

/**
 * Pages built to hang each in-page step of the pool's cleanup after a task (issue 19, High 1). Each answers its own
 * scrape (the snapshot comes first); what it does to the cleanup is what the test is about.
 */
const HANGS: Record<string, string> = {
  // The clean check's IndexedDB listing never settles (as an in-page probe would await it).
  'never-idb': `<script>IDBFactory.prototype.databases = () => new Promise(() => {});</script>`,
  // Its CacheStorage listing never settles.
  'never-caches': `<script>CacheStorage.prototype.keys = () => new Promise(() => {}); caches.keys = CacheStorage.prototype.keys;</script>`,
  // Reading local/session storage's length from the page busy-loops for ever.
  'busy-storage': `<script>Object.defineProperty(Storage.prototype, 'length', { get() { for (;;) {} } });</script>`,
  // The snapshot reads the title; the page busy-loops right after it, so every later call into the renderer hangs.
  'busy-after-snapshot': `<script>Object.defineProperty(document, 'title', { get() { setTimeout(() => { for (;;) {} }, 0); return 'busy'; } });</script>`,
  // Emptying the tab (navigating to about:blank) runs this handler, which never returns.
  'busy-on-leave': `<script>addEventListener('pagehide', () => { for (;;) {} }); addEventListener('unload', () => { for (;;) {} });</script>`,
  // A popup (same process as its opener) that busy-loops when it is closed: closing popups is a cleanup step too.
  'busy-popup': `<script>window.open('/popup-busy-on-leave');</script>`,
};
const PAGE = (body: string) =>
  `<!doctype html><html><head><title>hang</title></head><body><p>hostile</p>${body}</body></html>`;

// extractor-scrape in-process on real NATS and real Chromium, with the default two page slots.
describe('extractor-scrape: no page keeps a browser slot (real NATS, real Chromium)', () => {
  let nats: TestServer;
  let site: LoopbackServer;
  let app: INestMicroservice;
  let nc: NatsConnection;
  let client: MessagingClient;
  let pool: BrowserPool;

  beforeAll(async () => {
    nats = await startNats();
    site = await startLoopbackHttp((req, res) => {
      const name = (req.url ?? '/').slice(1);
      const html = (body: string) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
      if (name === 'normal') html('<html><head><title>Normal</title></head><body><h1>Normal page</h1></body></html>');
      else if (name === 'busy-after-snapshot-popup')
        html(PAGE(`<script>setTimeout(() => { for (;;) {} }, 50);</script>`));
      else if (HANGS[name] !== undefined) html(PAGE(HANGS[name]));
      else res.writeHead(404).end();
    });
    const env = loadEnv(ExtractorScrapeEnv, {
      NATS_URL: nats.url,
      SSRF_ALLOW_HOSTS: '127.0.0.1',
      INSTANCE_ID: 'scrape-stuck-e2e',
      METRICS_PORT: '0',
    });
    app = await NestFactory.createMicroservice<MicroserviceOptions>(AppModule.forRoot(env), {
      ...natsServerOptions([nats.url], QUEUE_GROUPS.extractorScrape, { gracePeriodMs: 10 }),
      logger: false,
    });
    await app.listen();
    pool = app.get(BrowserPool);
    await pool.warmUp();
    nc = await connectNats([nats.url], 'scrape-stuck-e2e-client');
    client = new MessagingClient(nc);
  });

  afterAll(async () => {
    await nc?.close();
    await app?.close();
    await site?.close();
    await nats?.stop();
  });

  it('pages hanging every cleanup step, more than the slots, leave a normal scrape and a render answering, and no slot busy', async () => {
    const { slots } = pool.stats();
    const names = Object.keys(HANGS);
    expect(names.length).toBeGreaterThan(slots);
    // Every hostile page twice: once for a tenant (the tab is kept, then re-checked and emptied for another tenant),
    // once without one (the tab is emptied at once).
    const hostile = await Promise.all(
      names.flatMap((name, i) =>
        [`tenant-${i}`, undefined].map((tenant) =>
          client
            .send(
              SUBJECTS.scrapePage,
              {
                url: `${site.url}/${name}`,
                formats: ['markdown'],
                timeout: 30_000,
                engine: 'browser',
                tenant,
              } as ScrapePageRequestDto,
              { timeoutMs: 60_000 },
            )
            .then(
              () => 'answered',
              (e: unknown) => `failed: ${(e as Error).message}`,
            ),
        ),
      ),
    );
    expect(hostile).toEqual(hostile.map(() => 'answered'));

    // Within 5 s each (the bound is the request's own timeout), a normal scrape and an upstream render answer.
    const [scraped, rendered] = await Promise.all([
      client.send(
        SUBJECTS.scrapePage,
        {
          url: `${site.url}/normal`,
          formats: ['markdown'],
          timeout: 5000,
          engine: 'browser',
          tenant: 'other',
        } as ScrapePageRequestDto,
        { timeoutMs: 5000 },
      ) as Promise<ScrapeResult>,
      client.send(SUBJECTS.renderPage, { url: `${site.url}/normal`, timeout: 5000 } as RenderPageRequestDto, {
        timeoutMs: 5000,
      }),
    ]);
    expect(scraped.markdown).toContain('# Normal page');
    expect(rendered.html).toContain('Normal page');

    // Every slot comes back: the busy count returns to 0 (polled, bounded by the test's timeout), none is stuck.
    while (pool.stats().busyPages > 0) await new Promise((r) => setTimeout(r, 50));
    expect(pool.stats()).toMatchObject({ busyPages: 0, stuckPages: 0 });
    expect(poolReadiness(pool.stats()).ok).toBe(true);
  }, 120_000);
});
