import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { MicroserviceOptions } from '@nestjs/microservices';
import type { NatsConnection } from '@nats-io/nats-core';
import { ExtractorScrapeEnv, loadEnv } from '@trawl/config';
import { decodeScrapeHtml, QUEUE_GROUPS, SUBJECTS, TrawlError, type ScrapeRequestDto } from '@trawl/contracts';
import { connectNats, MessagingClient, natsServerOptions } from '@trawl/messaging';
import { startLoopbackHttp, startNats, type LoopbackServer, type TestServer } from '@trawl/testing';
import { AppModule } from '../src/app.module.js';

const ARTICLE = `<!doctype html><html><head><title>Trawl test page</title></head><body>
<h1>Heading one</h1><p>First paragraph with a <a href="/next">link</a>.</p>
<div id="filled"></div><script>document.getElementById('filled').textContent = 'rendered by script';</script>
${'<p>Server-rendered text that makes this page long enough to need no browser. </p>'.repeat(10)}
</body></html>`;
const SPA = `<!doctype html><html><head><title>App</title></head><body><div id="root"></div>
<script>document.getElementById('root').innerHTML = '<h2>Client side content</h2>';</script></body></html>`;

// extractor-scrape in-process on a real nats-server, real Chromium, and a site on 127.0.0.1 (allowlisted).
describe('extractor-scrape over NATS (real NATS, real Chromium)', () => {
  let nats: TestServer;
  let site: LoopbackServer;
  let app: INestMicroservice;
  let nc: NatsConnection;
  let client: MessagingClient;

  const scrape = (req: Partial<ScrapeRequestDto> & { url: string }) =>
    client.send(SUBJECTS.scrapePage, { formats: ['markdown'], timeout: 15_000, ...req } as ScrapeRequestDto, {
      timeoutMs: 20_000,
    });
  const failure = (req: Partial<ScrapeRequestDto> & { url: string }) =>
    scrape(req).then(
      () => undefined,
      (e: unknown) => e as TrawlError,
    );

  beforeAll(async () => {
    nats = await startNats();
    site = await startLoopbackHttp((req, res) => {
      const path = req.url ?? '/';
      const html = (status: number, body: string, extra: Record<string, string> = {}) =>
        res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', ...extra }).end(body);
      if (path === '/article') html(200, ARTICLE);
      else if (path === '/spa') html(200, SPA);
      else if (path === '/set-cookie') html(200, '<p>cookie set</p>', { 'set-cookie': 'sid=task-a-secret; Path=/' });
      else if (path === '/to-metadata')
        res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
      else if (path === '/late')
        html(
          200,
          '<p id="x">early</p><script>setTimeout(() => { document.getElementById("x").textContent = "late content"; }, 300);</script>',
        );
      else if (path === '/never')
        return; // never answers (closed with the server)
      else if (path === '/missing') html(404, '<title>Not here</title><h1>404</h1>');
      else if (path === '/busy') html(429, '<title>Slow down</title><h1>429</h1>', { 'retry-after': '120' });
      else if (path === '/not-busy') html(200, '<title>Fine</title>', { 'retry-after': '120' });
      else html(200, `<title>echo</title><p>${path}</p>`);
    });
    const env = loadEnv(ExtractorScrapeEnv, {
      NATS_URL: nats.url,
      SSRF_ALLOW_HOSTS: '127.0.0.1',
      INSTANCE_ID: 'scrape-e2e',
      METRICS_PORT: '0',
    });
    app = await NestFactory.createMicroservice<MicroserviceOptions>(AppModule.forRoot(env), {
      ...natsServerOptions([nats.url], QUEUE_GROUPS.extractorScrape, { gracePeriodMs: 10 }),
      logger: false,
    });
    await app.listen();
    nc = await connectNats([nats.url], 'scrape-e2e-client');
    client = new MessagingClient(nc);
  });

  afterAll(async () => {
    await nc?.close();
    await app?.close();
    await site?.close();
    await nats?.stop();
  });

  it('returns the rendered page as markdown and as decodable html, with the page status', async () => {
    const result = await scrape({ url: `${site.url}/article`, formats: ['markdown', 'html'] });
    expect(result).toMatchObject({
      sourceURL: `${site.url}/article`,
      edgeId: 'scrape-e2e',
      status: 200,
      rawStatus: 200,
    });
    expect(result.taskId).toMatch(/^[0-9a-f-]{36}$/);
    expect(result.markdown).toContain('# Heading one');
    expect(result.markdown).toContain('rendered by script');
    const html = decodeScrapeHtml(result.html ?? '');
    expect(html).toContain('<h1>Heading one</h1>');
    expect(html).toContain('<div id="filled">rendered by script</div>');
    expect(result.metadata).toMatchObject({ title: 'Trawl test page', engine: 'browser', url: `${site.url}/article` });
  });

  it('sends the request headers to the page server', async () => {
    await scrape({
      url: `${site.url}/with-headers`,
      headers: { 'x-trawl-probe': 'probe-1', 'accept-language': 'de-DE' },
    });
    const seen = site.requests.find((r) => r.url === '/with-headers');
    expect(seen?.headers['x-trawl-probe']).toBe('probe-1');
    expect(seen?.headers['accept-language']).toBe('de-DE');
  });

  it('does not leak cookies from one scrape to the next', async () => {
    await scrape({ url: `${site.url}/set-cookie` });
    await scrape({ url: `${site.url}/after-cookie` });
    const after = site.requests.find((r) => r.url === '/after-cookie');
    expect(after).toBeDefined();
    expect(after?.headers.cookie).toBeUndefined();
  });

  it('refuses the cloud metadata address with URL_NOT_ALLOWED', async () => {
    const err = await failure({ url: 'http://169.254.169.254/latest/meta-data/' });
    expect(err).toBeInstanceOf(TrawlError);
    expect(err?.code).toBe('URL_NOT_ALLOWED');
    expect(err?.message).toContain('169.254.169.254');
  });

  it('refuses a redirect from an allowed page to the metadata address, on both engines', async () => {
    expect((await failure({ url: `${site.url}/to-metadata` }))?.code).toBe('URL_NOT_ALLOWED');
    expect((await failure({ url: `${site.url}/to-metadata`, engine: 'http' }))?.code).toBe('URL_NOT_ALLOWED');
  });

  it('fetches without running scripts on the http engine', async () => {
    const result = await scrape({ url: `${site.url}/article`, formats: ['html'], engine: 'http' });
    expect(result.metadata.engine).toBe('http');
    expect(result.rawStatus).toBe(200);
    expect(decodeScrapeHtml(result.html ?? '')).toContain('<div id="filled"></div>');
    expect(result.markdown).toBeUndefined();
  });

  it('uses the plain fetch for a server-rendered page and the browser for an app shell on the auto engine', async () => {
    const article = await scrape({ url: `${site.url}/article`, engine: 'auto' });
    const spa = await scrape({ url: `${site.url}/spa`, engine: 'auto' });
    expect(article.metadata.engine).toBe('http');
    expect(spa.metadata.engine).toBe('browser');
    expect(spa.markdown).toContain('## Client side content');
  });

  it('waits `waitFor` milliseconds after load before reading the page', async () => {
    const result = await scrape({ url: `${site.url}/late`, waitFor: 1000 });
    expect(result.markdown).toContain('late content');
  });

  it('returns a 404 page as a result carrying rawStatus 404', async () => {
    const result = await scrape({ url: `${site.url}/missing` });
    expect(result).toMatchObject({ status: 200, rawStatus: 404, metadata: { title: 'Not here' } });
  });

  it("carries a 429 page's Retry-After in its metadata, on both engines, and no other page's", async () => {
    for (const engine of ['http', 'browser'] as const) {
      const busy = await scrape({ url: `${site.url}/busy`, engine });
      expect(busy).toMatchObject({ rawStatus: 429, metadata: { statusCode: 429, retryAfter: '120', engine } });
      const fine = await scrape({ url: `${site.url}/not-busy`, engine });
      expect(fine.rawStatus).toBe(200);
      expect(fine.metadata.retryAfter).toBeUndefined();
    }
  });

  it('reports a page that cannot be reached as UPSTREAM_ERROR', async () => {
    expect((await failure({ url: 'http://127.0.0.1:1/' }))?.code).toBe('UPSTREAM_ERROR');
    expect((await failure({ url: 'http://127.0.0.1:1/', engine: 'http' }))?.code).toBe('UPSTREAM_ERROR');
  });

  it("answers UPSTREAM_TIMEOUT before the caller's deadline when the page does not load in time", async () => {
    expect((await failure({ url: `${site.url}/never`, timeout: 1500 }))?.code).toBe('UPSTREAM_TIMEOUT');
    expect((await failure({ url: `${site.url}/never`, timeout: 1500, engine: 'http' }))?.code).toBe('UPSTREAM_TIMEOUT');
  });

  it('rejects an invalid payload with VALIDATION_FAILED naming the field', async () => {
    const err = await failure({ url: `${site.url}/article`, formats: ['pdf' as 'html'] });
    expect(err?.code).toBe('VALIDATION_FAILED');
    expect(err?.field).toBe('formats');
  });
});
