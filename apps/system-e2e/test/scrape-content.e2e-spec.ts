import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { decodeScrapeHtml } from '@trawl/contracts';
import { startLoopbackHttp, type LoopbackServer } from '@trawl/testing';
import { callApi, startStack, type Stack } from './support/stack.js';

const PARAGRAPH =
  'The council voted on Tuesday to extend the tram line to the airport, a project of 14 km that will cost, ' +
  'by its own estimate, 640 million euros and open in 2029.';
// The page as served: its article is written into the DOM by a script, so the browser's rendering and the document
// as served differ (rawHtml is the latter; html, markdown and links read the former in the browser engine).
const PAGE = `<!doctype html><html lang="en-GB"><head><title>Tram line approved</title>
<meta name="description" content="The airport line"><link rel="canonical" href="/news/tram">
<meta property="og:title" content="Tram line approved (OG)"><meta name="twitter:card" content="summary"></head><body>
<header><a href="/">Daily Ledger</a><ul class="menu"><li><a href="/news">News</a></li><li><a href="/sport">Sport</a></li></ul></header>
<div class="cookie-banner">We use cookies. <a href="/privacy">Privacy</a></div>
<div class="layout"><div class="story"><h1>Tram line approved</h1>${`<p>${PARAGRAPH}</p>`.repeat(6)}
<div class="share-bar"><a href="https://social.example/share">Share this story</a></div></div>
<div class="sidebar"><h3>Most read</h3><ul><li><a href="/a">Heatwave warning</a></li><li><a href="/b">Bakery award</a></li></ul></div></div>
<div id="late"></div><script>document.getElementById('late').innerHTML = '<a href="/written-by-script">Later</a>';</script>
<footer><p>© 2026 Daily Ledger. All rights reserved.</p></footer></body></html>`;

const ENGINES = ['http', 'browser'] as const;

/**
 * Issue 21 (ADR 0023): main content, includeTags / excludeTags, the links and rawHtml formats and the page's
 * metadata, through the gateway and extractor-scrape as separate processes (real NATS, real Chromium).
 */
describe('scrape content options through the whole stack', () => {
  let site: LoopbackServer;
  let stack: Stack;
  const scrape = (body: Record<string, unknown>) => callApi(stack, 'POST', '/scrape', body);

  beforeAll(async () => {
    site = await startLoopbackHttp((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(PAGE);
    });
    stack = await startStack(['gateway', 'extractor-scrape'], { SSRF_ALLOW_HOSTS: '127.0.0.1' });
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    await site?.close();
  });

  it.each(ENGINES)(
    'engine %s: the markdown is the main content by default, the whole page with false',
    async (engine) => {
      const main = await scrape({ url: `${site.url}/news/tram`, engine });
      expect(main.status).toBe(200);
      const markdown = main.body.data.markdown as string;
      expect(markdown).toContain('# Tram line approved');
      expect(markdown).toContain('640 million euros');
      for (const furniture of ['Sport', 'We use cookies', 'Share this story', 'Most read', 'All rights reserved'])
        expect(markdown).not.toContain(furniture);

      const whole = await scrape({ url: `${site.url}/news/tram`, engine, onlyMainContent: false });
      for (const all of ['Sport', 'We use cookies', 'Most read', 'All rights reserved'])
        expect(whole.body.data.markdown).toContain(all);
    },
  );

  it.each(ENGINES)('engine %s: includeTags and excludeTags pick and drop elements', async (engine) => {
    const picked = await scrape({ url: `${site.url}/news/tram`, engine, includeTags: ['h1', '.sidebar'] });
    expect(picked.body.data.markdown).toBe(
      // Link URLs are absolute in the markdown, against the page's URL (as Firecrawl's).
      `# Tram line approved\n\n### Most read\n\n-   [Heatwave warning](${site.url}/a)\n-   [Bakery award](${site.url}/b)`,
    );
    const dropped = await scrape({
      url: `${site.url}/news/tram`,
      engine,
      onlyMainContent: false,
      excludeTags: ['header', 'footer', '.cookie-banner'],
    });
    expect(dropped.body.data.markdown).toContain('Most read');
    for (const gone of ['Sport', 'We use cookies', 'All rights reserved'])
      expect(dropped.body.data.markdown).not.toContain(gone);
  });

  it.each(ENGINES)('engine %s: links, rawHtml, html and metadata', async (engine) => {
    const res = await scrape({ url: `${site.url}/news/tram?x=1`, engine, formats: ['links', 'rawHtml', 'html'] });
    expect(res.status).toBe(200);
    const data = res.body.data;
    expect(data.markdown).toBeUndefined();
    expect(data.rawHtml).toBe(PAGE);
    const origin = site.url;
    const links = [
      `${origin}/`,
      `${origin}/news`,
      `${origin}/sport`,
      `${origin}/privacy`,
      'https://social.example/share',
      `${origin}/a`,
      `${origin}/b`,
    ];
    // The browser reads the rendered page: the link the script wrote is one of its links; the http engine never ran it.
    expect(data.links).toEqual(engine === 'browser' ? [...links, `${origin}/written-by-script`] : links);
    const html = decodeScrapeHtml(data.html);
    expect(html.includes('<div id="late"><a href="/written-by-script">')).toBe(engine === 'browser');
    expect(data.metadata).toEqual({
      title: 'Tram line approved',
      description: 'The airport line',
      language: 'en-GB',
      canonical: `${origin}/news/tram`,
      ogTitle: 'Tram line approved (OG)',
      'twitter:card': 'summary',
      url: `${origin}/news/tram?x=1`,
      sourceURL: `${origin}/news/tram?x=1`,
      statusCode: 200,
      contentType: 'text/html; charset=utf-8',
      engine,
      // blockAds is on by default (ADR 0030): the browser says how many requests it refused (the page makes none).
      ...(engine === 'browser' ? { adsBlocked: 0 } : {}),
    });
  });

  it('misuse ends in the envelope with a code: an unknown format, a selector that does not parse, a wrong type', async () => {
    const url = `${site.url}/news/tram`;
    const unknown = await scrape({ url, formats: ['markdown', 'pdf'] });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ code: 400, errorCode: 400 });
    expect(unknown.body.message).toContain('formats must contain only');

    const selector = await scrape({ url, engine: 'http', excludeTags: ['div[unclosed'] });
    expect(selector.status).toBe(400);
    expect(selector.body.message).toContain('excludeTags: "div[unclosed"');

    const wrongType = await scrape({ url, onlyMainContent: 'yes', includeTags: 'h1' });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.message).toMatch(/onlyMainContent|includeTags/);
  });
});
