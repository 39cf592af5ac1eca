import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { MicroserviceOptions } from '@nestjs/microservices';
import type { NatsConnection } from '@nats-io/nats-core';
import { ExtractorScrapeEnv, loadEnv } from '@trawl/config';
import { decodeScrapeHtml, QUEUE_GROUPS, SUBJECTS, type ScrapeRequestDto } from '@trawl/contracts';
import { connectNats, MessagingClient, natsServerOptions } from '@trawl/messaging';
import { createServer, type Server } from 'node:http';
import { startNats, type TestServer } from '@trawl/testing';
import { AppModule } from '../src/app.module.js';

// blockAds' element hiding (ADR 0030): an article with an ad container that EasyList hides (`##.adsbygoogle-wrapper`,
// a class name main content does not know by itself), served in the document, so both engines see it.
const PARAGRAPH =
  'The council voted on Tuesday to extend the tram line to the airport, a project of 14 km that will cost, ' +
  'by its own estimate, 640 million euros and open in 2029.';
const ARTICLE = `<!doctype html><html><head><title>Tram line approved</title></head><body>
<article><h1>Tram line approved</h1><p>${PARAGRAPH}</p><p>${PARAGRAPH}</p>
<div class="adsbygoogle-wrapper"><p>Cheap watches, 80 % off today, with free delivery to your door.</p></div>
<p>${PARAGRAPH}</p><p>${PARAGRAPH}</p></article></body></html>`;

// extractor-scrape in-process on a real nats-server, real Chromium, and a site on 127.0.0.2 (allowlisted). Not on
// 127.0.0.1: EasyList turns its generic hiding off there, on localhost and on private ranges (`@@://127.0.0.1$generichide`
// and the like: a router's admin page is no ad), as it would for the real thing.
describe('blockAds hides EasyList ad containers from the markdown (real NATS, real Chromium)', () => {
  let nats: TestServer;
  let site: Server;
  let siteUrl: string;
  let app: INestMicroservice;
  let nc: NatsConnection;
  let client: MessagingClient;

  const scrape = (req: Partial<ScrapeRequestDto>) =>
    client.send(
      SUBJECTS.scrapePage,
      {
        url: `${siteUrl}/article`,
        formats: ['markdown', 'html', 'rawHtml'],
        timeout: 15_000,
        ...req,
      } as ScrapeRequestDto,
      { timeoutMs: 20_000 },
    );

  beforeAll(async () => {
    nats = await startNats();
    site = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(ARTICLE);
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.2', resolve));
    siteUrl = `http://127.0.0.2:${(site.address() as { port: number }).port}`;
    const env = loadEnv(ExtractorScrapeEnv, {
      NATS_URL: nats.url,
      SSRF_ALLOW_HOSTS: '127.0.0.2',
      INSTANCE_ID: 'block-ads-e2e',
      METRICS_PORT: '0',
    });
    app = await NestFactory.createMicroservice<MicroserviceOptions>(AppModule.forRoot(env), {
      ...natsServerOptions([nats.url], QUEUE_GROUPS.extractorScrape, { gracePeriodMs: 10 }),
      logger: false,
    });
    await app.listen();
    nc = await connectNats([nats.url], 'block-ads-e2e-client');
    client = new MessagingClient(nc);
  }, 120_000);

  afterAll(async () => {
    await nc?.close();
    await app?.close();
    await new Promise((resolve) => site?.close(resolve));
    await nats?.stop();
  });

  it.each([
    ['browser', true],
    ['browser', false],
    ['http', true],
    ['http', false],
  ] as const)(
    '%s engine, onlyMainContent %s: gone from markdown by default; html and rawHtml keep it',
    async (engine, onlyMainContent) => {
      const result = await scrape({ engine, onlyMainContent });
      expect(result.markdown).not.toContain('Cheap watches');
      expect(result.markdown?.split(PARAGRAPH).length).toBe(5);
      expect(decodeScrapeHtml(result.html ?? '')).toContain('Cheap watches');
      expect(result.rawHtml).toContain('Cheap watches');
    },
  );

  it.each(['browser', 'http'] as const)(
    '%s engine with blockAds false: the ad container is in the markdown',
    async (engine) => {
      const result = await scrape({ engine, blockAds: false });
      expect(result.markdown).toContain('Cheap watches');
      expect(result.markdown?.split(PARAGRAPH).length).toBe(5);
    },
  );
});
