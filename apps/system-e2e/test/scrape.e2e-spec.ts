import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { decodeScrapeHtml } from '@trawl/contracts';
import { startLoopbackHttp, type LoopbackServer } from '@trawl/testing';
import { API_KEY, callApi, startStack, type Stack } from './support/stack.js';

const PAGE = `<!doctype html><html lang="en"><head><title>Trawl fixture</title></head><body>
<main><h1>Opening hours</h1><p>We open at <strong>nine</strong>.</p>
<ul><li>Monday</li><li>Tuesday</li></ul><a href="/next">Next page</a></main></body></html>`;

/**
 * Issue 2, "must show" 2: the gateway and extractor-scrape as separate processes over real NATS, Chromium scraping a
 * page served from 127.0.0.1.
 */
describe('scrape through the whole stack (processes, real NATS and Chromium)', () => {
  let site: LoopbackServer;
  let allowed: Stack;
  let guarded: Stack;

  beforeAll(async () => {
    site = await startLoopbackHttp((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(PAGE);
    });
    // One stack allowlists loopback (as a local demo would); the other runs with the SSRF guard's defaults.
    [allowed, guarded] = await Promise.all([
      startStack(['gateway', 'extractor-scrape'], { SSRF_ALLOW_HOSTS: '127.0.0.1' }),
      startStack(['gateway', 'extractor-scrape']),
    ]);
  });

  afterAll(async () => {
    await Promise.all([allowed?.stop(), guarded?.stop()]);
    await site?.close();
  });

  it('returns the envelope with correct markdown and decodable html', async () => {
    const res = await callApi(allowed, 'POST', '/scrape', { url: `${site.url}/hours`, formats: ['markdown', 'html'] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ code: 0, errorCode: 200, message: 'success' });
    expect(res.headers.get('x-request-id')).toBe(res.body.requestId);
    const data = res.body.data;
    expect(data).toMatchObject({ sourceURL: `${site.url}/hours`, status: 200, rawStatus: 200 });
    expect(typeof data.taskId).toBe('string');
    expect(typeof data.edgeId).toBe('string');
    expect(data.markdown).toContain('# Opening hours');
    expect(data.markdown).toContain('**nine**');
    expect(data.markdown).toMatch(/[-*]\s+Monday/);
    expect(data.markdown).toContain('[Next page]');
    expect(data.markdown).not.toContain('Trawl fixture'); // the <title> is metadata, not page content
    const html = decodeScrapeHtml(data.html);
    expect(html).toContain('<h1>Opening hours</h1>');
    expect(html).toContain('<title>Trawl fixture</title>');
  });

  it('also serves POST /extract with type scrape', async () => {
    const res = await callApi(allowed, 'POST', '/extract', { url: `${site.url}/x`, type: 'scrape', timeout: 20000 });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      status: 'completed',
      stacktrace: '',
      params: { type: 'scrape', timeout: 20000 },
    });
    expect(res.body.data.data.markdown).toContain('# Opening hours');
  });

  it('refuses a missing key with 401', async () => {
    const res = await callApi(allowed, 'POST', '/scrape', { url: `${site.url}/` }, {});
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ errorCode: 401, data: { error: 'UNAUTHORIZED' } });
  });

  it('answers formats ["pdf"] with 400 naming formats', async () => {
    const res = await callApi(allowed, 'POST', '/scrape', { url: `${site.url}/`, formats: ['pdf'] });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('formats');
    expect(res.body.data).toMatchObject({ error: 'VALIDATION_FAILED', field: 'formats' });
  });

  it('refuses the cloud metadata address with a 4xx', async () => {
    const res = await callApi(allowed, 'POST', '/scrape', { url: 'http://169.254.169.254/latest/meta-data/' });
    expect(res.status).toBe(422);
    expect(res.body.data.error).toBe('URL_NOT_ALLOWED');
  });

  it('refuses 127.0.0.1 when it is not allowlisted', async () => {
    const res = await callApi(guarded, 'POST', '/scrape', { url: `${site.url}/` }, { 'x-api-key': API_KEY });
    expect(res.status).toBe(422);
    expect(res.body.data.error).toBe('URL_NOT_ALLOWED');
    expect(res.body.message).toContain('127.0.0.1');
  });
});
