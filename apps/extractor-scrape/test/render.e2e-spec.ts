import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { MicroserviceOptions } from '@nestjs/microservices';
import type { NatsConnection } from '@nats-io/nats-core';
import { ExtractorScrapeEnv, loadEnv } from '@trawl/config';
import { QUEUE_GROUPS, SUBJECTS, TrawlError, type RenderPageRequestDto } from '@trawl/contracts';
import { connectNats, MessagingClient, natsServerOptions } from '@trawl/messaging';
import { startLoopbackHttp, startNats, type LoopbackServer, type TestServer } from '@trawl/testing';
import { AppModule } from '../src/app.module.js';

/** A results page written by script after the document parsed (as the 2026 upstreams serve a browser). */
const SCRIPTED = `<!doctype html><html><head><title>Results</title></head><body><div id="search"></div>
<script>document.getElementById('search').innerHTML = '<a href="https://example.com/">written by script</a>';</script>
</body></html>`;

/** A wall whose script proves the browser (a cookie) and reloads, as the 2026 upstreams do. */
const PROOF_WALL = `<!doctype html><html><head><title>wall</title></head><body><noscript>enable JavaScript</noscript>
<script>document.cookie = 'proof=ok; path=/'; location.reload();</script></body></html>`;
/** The page behind the wall: its content written by script 250 ms after load. */
const AFTER_LOAD = `<!doctype html><html><head><title>Results</title></head><body><div id="search"></div>
<script>addEventListener('load', () => setTimeout(() => {
  document.getElementById('search').innerHTML = '<h3>written after load</h3>';
}, 250));</script></body></html>`;

// The browser fleet's render subject, in-process on a real nats-server and real Chromium; a site on 127.0.0.1.
describe('extractor-scrape serves render.page.v1 (real NATS, real Chromium)', () => {
  let nats: TestServer;
  let site: LoopbackServer;
  let app: INestMicroservice;
  let nc: NatsConnection;
  let client: MessagingClient;

  const render = (req: Partial<RenderPageRequestDto> & { url: string }) =>
    client.send(SUBJECTS.renderPage, { timeout: 15_000, ...req } as RenderPageRequestDto, { timeoutMs: 20_000 });
  const failure = (req: Partial<RenderPageRequestDto> & { url: string }) =>
    render(req).then(
      () => undefined,
      (e: unknown) => e as TrawlError,
    );

  beforeAll(async () => {
    nats = await startNats();
    site = await startLoopbackHttp((req, res) => {
      const path = req.url ?? '/';
      const html = (status: number, body: string, extra: Record<string, string> = {}) =>
        res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', ...extra }).end(body);
      if (path === '/scripted') html(200, SCRIPTED, { 'x-upstream': 'sim' });
      else if (path === '/proof')
        html(200, /proof=ok/.test(req.headers.cookie ?? '') ? AFTER_LOAD : PROOF_WALL, { 'x-page': 'proof' });
      else if (path === '/hop') res.writeHead(302, { location: '/scripted' }).end();
      else if (path === '/to-metadata')
        res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
      else if (path === '/missing') html(404, '<title>Not here</title><h1>404</h1>');
      else html(200, `<title>echo</title><p>${path}</p>`);
    });
    const env = loadEnv(ExtractorScrapeEnv, {
      NATS_URL: nats.url,
      SSRF_ALLOW_HOSTS: '127.0.0.1',
      INSTANCE_ID: 'render-e2e',
      METRICS_PORT: '0',
    });
    app = await NestFactory.createMicroservice<MicroserviceOptions>(AppModule.forRoot(env), {
      ...natsServerOptions([nats.url], QUEUE_GROUPS.extractorScrape, { gracePeriodMs: 10 }),
      logger: false,
    });
    await app.listen();
    nc = await connectNats([nats.url], 'render-e2e-client');
    client = new MessagingClient(nc);
  });

  afterAll(async () => {
    await nc?.close();
    await app?.close();
    await site?.close();
    await nats?.stop();
  });

  it('replies with the final URL, status, headers and the HTML the page wrote by script', async () => {
    const reply = await render({ url: `${site.url}/hop`, hl: 'de', gl: 'DE', what: 'search page' });
    expect(reply.url).toBe(`${site.url}/scripted`);
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(reply.headers['x-upstream']).toBe('sim');
    expect(reply.html).toContain('<a href="https://example.com/">written by script</a>');
    expect(reply.renderMs).toBeGreaterThan(0);
  });

  it('follows a wall that proves the browser and reloads, and waits for content written after load', async () => {
    const reply = await render({ url: `${site.url}/proof` });
    expect(reply.status).toBe(200);
    expect(reply.html).toContain('<h3>written after load</h3>');
    expect(reply.html).not.toContain('enable JavaScript');
    expect(site.requests.filter((r) => r.url === '/proof').length).toBeGreaterThanOrEqual(2);
  });

  it('sends the cookies with the page request, and they do not reach the next render', async () => {
    await render({ url: `${site.url}/with-consent`, cookies: [{ name: 'SOCS', value: 'CAESHAgB' }] });
    await render({ url: `${site.url}/after-consent` });
    const first = site.requests.find((r) => r.url === '/with-consent');
    const after = site.requests.find((r) => r.url === '/after-consent');
    expect(first?.headers.cookie).toBe('SOCS=CAESHAgB');
    expect(after).toBeDefined();
    expect(after?.headers.cookie).toBeUndefined();
  });

  it('replies with a 404 page as a status, for the extractor to map', async () => {
    const reply = await render({ url: `${site.url}/missing` });
    expect(reply.status).toBe(404);
    expect(reply.html).toContain('Not here');
  });

  it('refuses the cloud metadata address, and a redirect to it, with URL_NOT_ALLOWED (the /scrape guard)', async () => {
    const direct = await failure({ url: 'http://169.254.169.254/latest/meta-data/' });
    expect(direct).toBeInstanceOf(TrawlError);
    expect(direct?.code).toBe('URL_NOT_ALLOWED');
    expect((await failure({ url: `${site.url}/to-metadata` }))?.code).toBe('URL_NOT_ALLOWED');
  });

  it('rejects an invalid payload with VALIDATION_FAILED naming the field', async () => {
    const err = await failure({ url: `${site.url}/x`, cookies: [{ name: 'bad name', value: 'x' }] });
    expect(err).toMatchObject({ code: 'VALIDATION_FAILED', field: 'cookies' });
  });
});
