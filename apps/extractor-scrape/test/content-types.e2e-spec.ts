import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { MicroserviceOptions } from '@nestjs/microservices';
import type { NatsConnection } from '@nats-io/nats-core';
import { ExtractorScrapeEnv, loadEnv } from '@trawl/config';
import {
  decodeScrapeHtml,
  QUEUE_GROUPS,
  SUBJECTS,
  TrawlError,
  type ScrapeEngine,
  type ScrapeRequestDto,
} from '@trawl/contracts';
import { connectNats, MessagingClient, natsServerOptions } from '@trawl/messaging';
import { startLoopbackHttp, startNats, type LoopbackServer, type TestServer } from '@trawl/testing';
import iconv from 'iconv-lite';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { AppModule } from '../src/app.module.js';

const ENGINES: ScrapeEngine[] = ['http', 'auto', 'browser'];
const CAFE = 'Un café crème à côté de la gare';
const JAPANESE = '東京の天気は晴れです';
const filler = '<p>Server-rendered text that makes this page long enough to need no browser at all. </p>'.repeat(5);
// windows-1252, declared only in <meta> (the header says text/html and nothing more).
const LATIN = iconv.encode(
  `<!doctype html><html><head><meta charset="windows-1252"><title>Café</title></head><body><h1>${CAFE}</h1>${filler}</body></html>`,
  'windows-1252',
);
const SJIS = iconv.encode(
  `<!doctype html><html><head><meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS"><title>天気</title></head><body><h1>${JAPANESE}</h1>${filler}</body></html>`,
  'Shift_JIS',
);
// 1x1 transparent PNG.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=',
  'base64',
);

async function makePdf(): Promise<Buffer> {
  const doc = await PDFDocument.create();
  doc.setTitle('Quarterly report');
  const font = await doc.embedFont(StandardFonts.Helvetica);
  doc.addPage().drawText('Revenue grew in the third quarter', { x: 50, y: 700, size: 14, font });
  doc.addPage().drawText('Outlook remains stable', { x: 50, y: 700, size: 14, font });
  return Buffer.from(await doc.save());
}

// Encodings and content types through /scrape's subject, in every engine: real NATS, real Chromium, a site on 127.0.0.1.
describe('extractor-scrape: encodings and content types (real NATS, real Chromium)', () => {
  let nats: TestServer;
  let site: LoopbackServer;
  let app: INestMicroservice;
  let nc: NatsConnection;
  let client: MessagingClient;

  const scrape = (req: Partial<ScrapeRequestDto> & { url: string }) =>
    client.send(SUBJECTS.scrapePage, { formats: ['markdown'], timeout: 20_000, ...req } as ScrapeRequestDto, {
      timeoutMs: 25_000,
    });
  const failure = (req: Partial<ScrapeRequestDto> & { url: string }) =>
    scrape(req).then(
      () => undefined,
      (e: unknown) => e as TrawlError,
    );

  beforeAll(async () => {
    const pdf = await makePdf();
    nats = await startNats();
    site = await startLoopbackHttp((req, res) => {
      const path = req.url ?? '/';
      if (path === '/latin1') res.writeHead(200, { 'content-type': 'text/html' }).end(LATIN);
      else if (path === '/sjis') res.writeHead(200, { 'content-type': 'text/html' }).end(SJIS);
      else if (path === '/report.pdf') res.writeHead(200, { 'content-type': 'application/pdf' }).end(pdf);
      else if (path === '/pixel.png') res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
      else if (path === '/data.json')
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"café":"crème"}');
      else res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>no</h1>');
    });
    const env = loadEnv(ExtractorScrapeEnv, {
      NATS_URL: nats.url,
      SSRF_ALLOW_HOSTS: '127.0.0.1',
      INSTANCE_ID: 'scrape-content-e2e',
      METRICS_PORT: '0',
    });
    app = await NestFactory.createMicroservice<MicroserviceOptions>(AppModule.forRoot(env), {
      ...natsServerOptions([nats.url], QUEUE_GROUPS.extractorScrape, { gracePeriodMs: 10 }),
      logger: false,
    });
    await app.listen();
    nc = await connectNats([nats.url], 'scrape-content-e2e-client');
    client = new MessagingClient(nc);
  });

  afterAll(async () => {
    await nc?.close();
    await app?.close();
    await site?.close();
    await nats?.stop();
  });

  it.each(ENGINES)('reads a windows-1252 page declared only in <meta> right (engine %s)', async (engine) => {
    const result = await scrape({ url: `${site.url}/latin1`, engine, formats: ['markdown', 'html'] });
    expect(result.markdown).toContain(`# ${CAFE}`);
    expect(decodeScrapeHtml(result.html ?? '')).toContain(CAFE);
    expect(result.metadata.title).toBe('Café');
  });

  it.each(ENGINES)('reads a Shift_JIS page right (engine %s)', async (engine) => {
    const result = await scrape({ url: `${site.url}/sjis`, engine });
    expect(result.markdown).toContain(`# ${JAPANESE}`);
    expect(result.metadata.title).toBe('天気');
  });

  it.each(ENGINES)("returns a PDF's text in markdown (engine %s)", async (engine) => {
    const result = await scrape({ url: `${site.url}/report.pdf`, engine, formats: ['markdown', 'html'] });
    expect(result.markdown).toBe('Revenue grew in the third quarter\n\nOutlook remains stable');
    expect(decodeScrapeHtml(result.html ?? '')).toContain('Revenue grew in the third quarter');
    expect(result.metadata).toMatchObject({ title: 'Quarterly report', contentType: 'application/pdf' });
  });

  it.each(ENGINES)('refuses an image with UNSUPPORTED_CONTENT_TYPE naming the type (engine %s)', async (engine) => {
    const err = await failure({ url: `${site.url}/pixel.png`, engine });
    expect(err).toBeInstanceOf(TrawlError);
    expect(err?.code).toBe('UNSUPPORTED_CONTENT_TYPE');
    expect(err?.message).toContain('image/png');
    expect(err?.retryable).toBe(false);
  });

  it('returns JSON as its text', async () => {
    const result = await scrape({ url: `${site.url}/data.json`, engine: 'http' });
    expect(result.markdown).toBe('{"café":"crème"}');
  });
});
