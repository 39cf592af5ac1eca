import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { MicroserviceOptions } from '@nestjs/microservices';
import type { NatsConnection } from '@nats-io/nats-core';
import { ExtractorScrapeEnv, loadEnv } from '@trawl/config';
import { QUEUE_GROUPS, SUBJECTS, type ScrapeRequestDto } from '@trawl/contracts';
import { connectNats, MessagingClient, natsServerOptions } from '@trawl/messaging';
import { startLoopbackHttp, startNats, type LoopbackServer, type TestServer } from '@trawl/testing';
import { AppModule } from '../src/app.module.js';

// Must-show 4 (issue 12): with default settings, /scrape's browser engine returns content that arrives after load.
// Real NATS, real Chromium, a site on 127.0.0.1 (allowlisted). Asserts content and order, never times.
const SHELL_30MS = `<!doctype html><html><head><title>Shell</title></head><body><div id="root"></div>
<script>addEventListener('load', () => setTimeout(() => {
  document.getElementById('root').innerHTML = '<h2>Filled by script after load</h2>';
}, 30));</script></body></html>`;
const FROM_API = `<!doctype html><html><head><title>Feed</title></head><body><ul id="items"></ul>
<script>addEventListener('load', () => fetch('/api/items').then((r) => r.json()).then((items) => {
  document.getElementById('items').innerHTML = items.map((i) => '<li>' + i + '</li>').join('');
}));</script></body></html>`;
const STATIC = `<!doctype html><html><head><title>Static</title></head><body><p>Nothing arrives later.</p></body></html>`;

describe('extractor-scrape settles a page after load (real NATS, real Chromium)', () => {
  let nats: TestServer;
  let site: LoopbackServer;
  let app: INestMicroservice;
  let nc: NatsConnection;
  let client: MessagingClient;
  const order: string[] = [];

  const scrape = (path: string) =>
    client.send(
      SUBJECTS.scrapePage,
      { url: `${site.url}${path}`, formats: ['markdown'], timeout: 15_000 } as ScrapeRequestDto,
      {
        timeoutMs: 20_000,
      },
    );

  beforeAll(async () => {
    nats = await startNats();
    site = await startLoopbackHttp(async (req, res) => {
      const path = req.url ?? '/';
      const html = (body: string) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
      if (path === '/shell') html(SHELL_30MS);
      else if (path === '/feed') html(FROM_API);
      else if (path === '/static') html(STATIC);
      else if (path === '/api/items') {
        order.push('api asked');
        await new Promise((r) => setTimeout(r, 300)); // the API answers well after the page's load event
        order.push('api answered');
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(['first item', 'second item']));
      } else res.writeHead(404).end();
    });
    // Default settings: no BROWSER_SETTLE_* given, no waitFor in the requests.
    const env = loadEnv(ExtractorScrapeEnv, {
      NATS_URL: nats.url,
      SSRF_ALLOW_HOSTS: '127.0.0.1',
      INSTANCE_ID: 'settle-e2e',
      METRICS_PORT: '0',
    });
    app = await NestFactory.createMicroservice<MicroserviceOptions>(AppModule.forRoot(env), {
      ...natsServerOptions([nats.url], QUEUE_GROUPS.extractorScrape, { gracePeriodMs: 10 }),
      logger: false,
    });
    await app.listen();
    nc = await connectNats([nats.url], 'settle-e2e-client');
    client = new MessagingClient(nc);
  });

  afterAll(async () => {
    await nc?.close();
    await app?.close();
    await site?.close();
    await nats?.stop();
  });

  it('returns the content a script writes into the page 30 ms after load', async () => {
    const result = await scrape('/shell');
    expect(result.metadata).toMatchObject({ engine: 'browser' });
    expect(result.markdown).toContain('Filled by script after load');
  });

  it('returns the content a page fills from an API it calls after load, once the API has answered', async () => {
    const result = await scrape('/feed');
    order.push('scrape returned');
    expect(result.markdown).toContain('first item');
    expect(result.markdown).toContain('second item');
    expect(order).toEqual(['api asked', 'api answered', 'scrape returned']);
  });

  it('returns a static page as it is', async () => {
    const result = await scrape('/static');
    expect(result.markdown).toContain('Nothing arrives later.');
  });
});
