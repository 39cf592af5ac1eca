import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { MicroserviceOptions } from '@nestjs/microservices';
import type { NatsConnection } from '@nats-io/nats-core';
import { ExtractorScrapeEnv, loadEnv } from '@trawl/config';
import { QUEUE_GROUPS, SUBJECTS, TrawlError, type ScrapePageRequestDto, type ScrapeResult } from '@trawl/contracts';
import { connectNats, MessagingClient, natsServerOptions } from '@trawl/messaging';
import { startLoopbackHttp, startNats, type LoopbackServer, type TestServer } from '@trawl/testing';
import { createServer, type Server } from 'node:http';
import { AppModule } from '../src/app.module.js';

/** Width and height of a PNG (its IHDR chunk) or a JPEG (its first SOF marker), from a data URL. */
function imageSize(dataUrl: string): { type: string; width: number; height: number } {
  const [head, b64] = dataUrl.split(',');
  const bytes = Buffer.from(b64, 'base64');
  if (head === 'data:image/png;base64')
    return { type: 'png', width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
  for (let i = 2; i < bytes.length;) {
    const marker = bytes[i + 1];
    if (marker >= 0xc0 && marker <= 0xc2)
      return { type: 'jpeg', height: bytes.readUInt16BE(i + 5), width: bytes.readUInt16BE(i + 7) };
    i += 2 + bytes.readUInt16BE(i + 2);
  }
  return { type: head, width: 0, height: 0 };
}

const ACTIONS_PAGE = `<!doctype html><html><head><title>Actions</title></head><body>
<h1>List</h1><ul id="list"><li>first</li></ul>
<button id="more" onclick="const li = document.createElement('li'); li.textContent = 'loaded by click'; list.append(li)">More</button>
<input id="q" autofocus>
<form onsubmit="event.preventDefault(); const p = document.createElement('p'); p.id = 'typed'; p.textContent = 'typed: ' + q.value; document.body.append(p)"><input id="q2"></form>
<script>setTimeout(() => { const p = document.createElement('p'); p.id = 'late'; p.textContent = 'late arrival'; document.body.append(p) }, 300);
document.getElementById('q').addEventListener('keydown', (e) => { if (e.key === 'Enter') { const p = document.createElement('p'); p.id = 'typed'; p.textContent = 'typed: ' + e.target.value; document.body.append(p) } });</script>
<div style="height: 3000px">tall</div></body></html>`;

/** What the page learns of where and what it runs on, written into the document. */
const PROBE_PAGE = `<!doctype html><html><head><title>Probe</title><meta name="viewport" content="width=device-width"></head><body><pre id="out"></pre><script>
const out = { languages: navigator.languages, language: navigator.language, zone: Intl.DateTimeFormat().resolvedOptions().timeZone,
  ua: navigator.userAgent, mobile: navigator.userAgentData && navigator.userAgentData.mobile, platform: navigator.userAgentData && navigator.userAgentData.platform,
  touch: navigator.maxTouchPoints, width: innerWidth, screen: screen.width };
navigator.geolocation.getCurrentPosition(
  (p) => { out.position = [p.coords.latitude, p.coords.longitude]; document.getElementById('out').textContent = JSON.stringify(out); },
  () => { out.position = null; document.getElementById('out').textContent = JSON.stringify(out); });
</script></body></html>`;

// The browser options of a scrape (ADR 0019) on extractor-scrape in-process: real NATS, real Chromium, loopback site.
describe('extractor-scrape: screenshot, actions, location and mobile (real NATS, real Chromium)', () => {
  let nats: TestServer;
  let site: LoopbackServer;
  let forbidden: Server;
  let forbiddenHits = 0;
  let third: LoopbackServer;
  let app: INestMicroservice;
  let nc: NatsConnection;
  let client: MessagingClient;

  const scrape = (req: Partial<ScrapePageRequestDto> & { url: string }) =>
    client.send(
      SUBJECTS.scrapePage,
      { formats: ['markdown'], timeout: 30_000, engine: 'browser', ...req } as ScrapePageRequestDto,
      { timeoutMs: 35_000 },
    ) as Promise<ScrapeResult>;
  /** What the probe page saw, read by an action once it has written it. */
  const probe = async (req: Partial<ScrapePageRequestDto>) => {
    const r = await scrape({
      url: `${site.url}/probe`,
      ...req,
      actions: [
        { type: 'wait', selector: '#out:not(:empty)' },
        { type: 'executeJavascript', script: "return JSON.parse(document.getElementById('out').textContent)" },
      ],
    });
    return r.actions?.javascriptReturns[0]?.value as Record<string, unknown>;
  };
  const failure = (req: Partial<ScrapePageRequestDto> & { url: string }) =>
    scrape(req).then(
      () => undefined,
      (e: unknown) => e as TrawlError,
    );

  beforeAll(async () => {
    nats = await startNats();
    // A second loopback host the SSRF guard does not allow: it must never be asked for anything.
    forbidden = createServer((_, res) => {
      forbiddenHits++;
      res.end('secret');
    });
    await new Promise<void>((resolve) => forbidden.listen(0, '127.0.0.2', resolve));
    const forbiddenPort = (forbidden.address() as { port: number }).port;
    // A third party of the scraped page: another host (localhost) and port, allowed by the guard.
    third = await startLoopbackHttp((req, res) => {
      res.writeHead(200, { 'content-type': req.url?.endsWith('.js') ? 'text/javascript' : 'text/html' }).end('');
    });
    const thirdUrl = third.url.replace('127.0.0.1', 'localhost');
    site = await startLoopbackHttp((req, res) => {
      const path = req.url ?? '/';
      const html = (body: string) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
      if (path === '/actions') html(ACTIONS_PAGE);
      else if (path.startsWith('/with-third-parties'))
        html(`<title>Third</title><script src="${thirdUrl}/t.js"></script><iframe src="${thirdUrl}/frame"></iframe>
          <script>fetch('${thirdUrl}/beacon', { mode: 'no-cors' })</script><p>own page</p>`);
      else if (path === '/probe') html(PROBE_PAGE);
      else if (path === '/tall')
        html(`<title>Tall</title><div style="height: 2400px; background: linear-gradient(red, blue)">tall</div>`);
      else if (path === '/noise')
        // A canvas of random pixels over 1280×2000: no image format compresses it under the cap.
        html(`<title>Noise</title><body style="margin:0"><canvas id="c" width="1280" height="2000"></canvas><script>
          const c = document.getElementById('c').getContext('2d'); const img = c.createImageData(1280, 2000);
          for (let i = 0; i < img.data.length; i++) img.data[i] = Math.random() * 256; c.putImageData(img, 0, 0);</script></body>`);
      else if (path === '/to-forbidden')
        html(`<title>Link</title><a id="go" href="http://127.0.0.2:${forbiddenPort}/secret">go</a>`);
      else html(`<title>Plain</title><h1>Plain page</h1>`);
    });
    const env = loadEnv(ExtractorScrapeEnv, {
      NATS_URL: nats.url,
      SSRF_ALLOW_HOSTS: '127.0.0.1,localhost',
      INSTANCE_ID: 'browser-options-e2e',
      METRICS_PORT: '0',
      SCRAPE_SCREENSHOT_MAX_BYTES: String(1024 * 1024),
    });
    app = await NestFactory.createMicroservice<MicroserviceOptions>(AppModule.forRoot(env), {
      ...natsServerOptions([nats.url], QUEUE_GROUPS.extractorScrape, { gracePeriodMs: 10 }),
      logger: false,
    });
    await app.listen();
    nc = await connectNats([nats.url], 'browser-options-e2e-client');
    client = new MessagingClient(nc);
  });

  afterAll(async () => {
    await nc?.close();
    await app?.close();
    await site?.close();
    await third?.close();
    await new Promise((r) => forbidden?.close(r));
    await nats?.stop();
  });

  it('screenshot: a PNG of the viewport, inline as a data URL, beside the markdown', async () => {
    const r = await scrape({ url: `${site.url}/tall`, formats: ['markdown', 'screenshot'] });
    expect(r.screenshot).toMatch(/^data:image\/png;base64,/);
    expect(imageSize(r.screenshot ?? '')).toEqual({ type: 'png', width: 1280, height: 720 });
    expect(r.markdown).toContain('tall');
  });

  it('screenshot@fullPage: the whole page; the object form takes quality (JPEG) and a viewport', async () => {
    const full = await scrape({ url: `${site.url}/tall`, formats: ['screenshot@fullPage'] });
    expect(imageSize(full.screenshot ?? '').height).toBeGreaterThanOrEqual(2400);
    expect(full.markdown).toBeUndefined();
    const small = await scrape({
      url: `${site.url}/tall`,
      formats: [{ type: 'screenshot', quality: 60, viewport: { width: 480, height: 360 } }],
    });
    expect(imageSize(small.screenshot ?? '')).toEqual({ type: 'jpeg', width: 480, height: 360 });
  });

  it('a screenshot over the cap fails the scrape with CONTENT_TOO_LARGE', async () => {
    const e = await failure({ url: `${site.url}/noise`, formats: ['screenshot@fullPage'] });
    expect(e).toBeInstanceOf(TrawlError);
    expect(e?.code).toBe('CONTENT_TOO_LARGE');
    expect(e?.message).toMatch(/screenshot is \d+ bytes, more than the 1048576/);
  });

  it('actions run in order before the scrape, and the answer carries their screenshots, scrapes and returns', async () => {
    const r = await scrape({
      url: `${site.url}/actions`,
      actions: [
        { type: 'wait', selector: '#late' },
        { type: 'click', selector: '#more' },
        { type: 'scrape' },
        { type: 'click', selector: '#q' },
        { type: 'write', text: 'hello' },
        { type: 'press', key: 'Enter' },
        { type: 'scroll', direction: 'down' },
        { type: 'wait', milliseconds: 50 },
        { type: 'executeJavascript', script: 'return { y: Math.round(scrollY) > 0, items: list.children.length }' },
        { type: 'executeJavascript', script: 'document.title = "Changed"' },
        { type: 'screenshot' },
      ],
    });
    expect(r.markdown).toContain('loaded by click');
    expect(r.markdown).toContain('typed: hello');
    expect(r.markdown).toContain('late arrival');
    expect(r.metadata.title).toBe('Changed');
    const actions = r.actions;
    expect(actions?.scrapes).toHaveLength(1);
    expect(actions?.scrapes[0].url).toBe(`${site.url}/actions`);
    expect(actions?.scrapes[0].html).toContain('loaded by click');
    expect(actions?.scrapes[0].html).not.toContain('typed: hello'); // taken before the typing
    expect(actions?.javascriptReturns).toEqual([
      { type: 'object', value: { y: true, items: 2 } },
      { type: 'undefined', value: null },
    ]);
    expect(actions?.screenshots).toHaveLength(1);
    expect(imageSize(actions?.screenshots[0] ?? '').type).toBe('png');
  });

  it('a failing action names itself and its index', async () => {
    const e = await failure({
      url: `${site.url}/actions`,
      actions: [
        { type: 'click', selector: '#more' },
        { type: 'click', selector: '#nowhere' },
      ],
    });
    expect(e?.code).toBe('PAGE_NOT_RECOGNISED');
    expect(e?.field).toBe('actions[1]');
    expect(e?.message).toMatch(/^action 1 \(click\) failed: no element matches "#nowhere"/);
    const thrown = await failure({
      url: `${site.url}/plain`,
      actions: [{ type: 'executeJavascript', script: 'throw new Error("boom")' }],
    });
    expect(thrown?.field).toBe('actions[0]');
    expect(thrown?.message).toMatch(/action 0 \(executeJavascript\) failed: .*boom/);
  });

  it('the SSRF guard holds for what an action makes the page load: a click to a forbidden host is refused', async () => {
    const e = await failure({
      url: `${site.url}/to-forbidden`,
      actions: [
        { type: 'click', selector: '#go' },
        { type: 'wait', milliseconds: 500 },
      ],
    });
    expect(e?.code).toBe('URL_NOT_ALLOWED');
    expect(forbiddenHits).toBe(0);
  });

  it('location sets the languages, time zone and position the page sees', async () => {
    const seen = await probe({ location: { country: 'DE', languages: ['de-DE', 'de'] } });
    expect(seen).toMatchObject({
      languages: ['de-DE', 'de'],
      language: 'de-DE',
      zone: 'Europe/Berlin',
      position: [52.52, 13.41],
    });
    const sent = site.requests.filter((q) => q.url === '/probe').at(-1);
    expect(sent?.headers['accept-language']).toBe('de-DE,de;q=0.9');
  });

  it('mobile emulates a phone: user agent, client hints, touch and a phone-wide viewport agree', async () => {
    const seen = await probe({ mobile: true });
    expect(seen).toMatchObject({ mobile: true, platform: 'Android', width: 412, screen: 412 });
    expect(seen.ua).toMatch(/Android .* Mobile Safari/);
    expect(seen.touch).toBeGreaterThan(0);
    const sent = site.requests.filter((q) => q.url === '/probe').at(-1);
    expect(sent?.headers['sec-ch-ua-mobile']).toBe('?1');
    expect(sent?.headers['user-agent']).toMatch(/Mobile Safari/);
    // A desktop scrape after it is a desktop again (the phone has a session of its own).
    expect(await probe({})).toMatchObject({
      mobile: false,
      width: 1280,
    });
  });

  it('engine http with a browser option is refused, naming the engine', async () => {
    const e = await failure({ url: `${site.url}/plain`, engine: 'http', mobile: true });
    expect(e?.code).toBe('VALIDATION_FAILED');
    expect(e?.field).toBe('mobile');
    expect(e?.message).toBe('mobile needs the browser engine (engine is http)');
  });

  it("caller headers reach the requested page only: cookies for its host, the rest on its main frame's requests", async () => {
    const headers = { Cookie: 'session=s3cret', Authorization: 'Bearer t0ken', 'X-Api-Token': 'k3y' };
    await scrape({ url: `${site.url}/with-third-parties`, headers, actions: [{ type: 'wait', milliseconds: 300 }] });
    const own = site.requests.find((q) => q.url === '/with-third-parties');
    expect(own?.headers).toMatchObject({
      cookie: 'session=s3cret',
      authorization: 'Bearer t0ken',
      'x-api-token': 'k3y',
    });
    const seenByThird = third.requests.map((q) => q.url).sort();
    expect(seenByThird).toEqual(['/beacon', '/frame', '/t.js']);
    for (const q of third.requests) {
      expect(q.headers.authorization).toBeUndefined();
      expect(q.headers['x-api-token']).toBeUndefined();
      expect(q.headers.cookie).toBeUndefined();
    }
  });

  it('headersEverywhere sends them with every request of the page, as asked', async () => {
    third.requests.length = 0;
    await scrape({
      url: `${site.url}/with-third-parties-everywhere`,
      headers: { Authorization: 'Bearer t0ken' },
      headersEverywhere: true,
      actions: [{ type: 'wait', milliseconds: 300 }],
    });
    expect(third.requests.length).toBeGreaterThan(0);
    for (const q of third.requests) expect(q.headers.authorization).toBe('Bearer t0ken');
  });
});
