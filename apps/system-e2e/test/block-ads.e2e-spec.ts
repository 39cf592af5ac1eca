import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { decodeScrapeHtml } from '@trawl/contracts';
import { startLoopbackHttp, type LoopbackServer } from '@trawl/testing';
import { API_KEY, callApi, startStack, WORKSPACE_ROOT, type Stack } from './support/stack.js';

const STORY = 'The harbour bridge reopens on Monday after eighteen months of repairs, the city said.';

/** The article: its own script writes a line into it; an analytics script and a widget come from another host. */
function articleHtml(otherHost: string, tag: string): string {
  return `<!doctype html><html lang="en"><head><title>Bridge reopens</title></head><body>
<main><article><h1>Bridge reopens</h1><p>${STORY}</p><p id="own"></p><p id="tracker"></p></article></main>
<script src="/app.js"></script>
<script src="${otherHost}/js/matomo.js?case=${tag}"></script>
<script src="${otherHost}/js/widget.js?case=${tag}"></script>
</body></html>`;
}

/** An article with an ad container EasyList hides (`##.adsbygoogle-wrapper`), served in the document itself. */
const AD_ARTICLE = `<!doctype html><html lang="en"><head><title>Bridge reopens</title></head><body>
<main><article><h1>Bridge reopens</h1><p>${STORY}</p>
<div class="adsbygoogle-wrapper"><p>Cheap watches, 80 % off today, with free delivery to your door.</p></div>
<p>${STORY}</p></article></main></body></html>`;

/**
 * Issue 21, item 7 (ADR 0030): `blockAds` through the whole stack (gateway and extractor-scrape as processes, real
 * NATS and Chromium behind the guarding proxy). The page on 127.0.0.1 loads `/js/matomo.js` from a second host,
 * 127.0.0.2 (allowed by SSRF_ALLOW_HOSTS): the tracker database files `/matomo.js` under site_analytics, for any host,
 * so the second host's own request log says whether the browser ever asked for it.
 */
describe('blockAds through the whole stack', () => {
  let site: LoopbackServer;
  let other: Server;
  let otherUrl = '';
  const otherHits: string[] = [];
  let stack: Stack;
  const scrape = (body: Record<string, unknown>) => callApi(stack, 'POST', '/scrape', body);
  const hits = (tag: string) => otherHits.filter((u) => u.endsWith(`case=${tag}`)).map((u) => u.split('?')[0]);

  beforeAll(async () => {
    site = await startLoopbackHttp((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname === '/app.js') {
        res.writeHead(200, { 'content-type': 'text/javascript', 'cache-control': 'no-store' });
        res.end(`document.getElementById('own').textContent = 'Timetables are on the city site.';`);
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      res.end(articleHtml(otherUrl, url.searchParams.get('case') ?? ''));
    });
    other = createServer((req, res) => {
      if ((req.url ?? '').startsWith('/ad-article')) {
        // On 127.0.0.2: EasyList turns generic hiding off on 127.0.0.1 and localhost (`@@://127.0.0.1$generichide`).
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
        res.end(AD_ARTICLE);
        return;
      }
      otherHits.push(req.url ?? '');
      const tracker = (req.url ?? '').startsWith('/js/matomo.js');
      res.writeHead(200, { 'content-type': 'text/javascript', 'cache-control': 'no-store' });
      res.end(tracker ? `document.getElementById('tracker').textContent = 'Tracked by the analytics script.';` : '');
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.2', resolve));
    otherUrl = `http://127.0.0.2:${(other.address() as { port: number }).port}`;
    stack = await startStack(['gateway', 'extractor-scrape'], { SSRF_ALLOW_HOSTS: '127.0.0.1,127.0.0.2' });
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    await site?.close();
    await new Promise((resolve) => other?.close(resolve));
  });

  it('the filter is the installed tracker database’s own: /matomo.js, filed under site_analytics', () => {
    const list = readFileSync(join(WORKSPACE_ROOT, 'node_modules/@ghostery/trackerdb/dist/trackerdb.txt'), 'utf8');
    expect(list).toContain('! trackerdb_id:matomo trackerdb_category:site_analytics trackerdb_filter\n/matomo.js\n');
  });

  it('browser, by default: the analytics script never reaches its host; the content and the page’s own script are intact', async () => {
    const res = await scrape({ url: `${site.url}/news/bridge?case=default`, engine: 'browser' });
    expect(res.status).toBe(200);
    const markdown = res.body.data.markdown as string;
    expect(markdown).toContain(STORY);
    expect(markdown).toContain('Timetables are on the city site.');
    expect(markdown).not.toContain('Tracked by the analytics script.');
    expect(hits('default')).toEqual(['/js/widget.js']); // a third party that is not a tracker loads
    expect(res.body.data.metadata.adsBlocked).toBe(1);
  });

  it('browser, blockAds false: the analytics script is fetched and runs', async () => {
    const res = await scrape({ url: `${site.url}/news/bridge?case=off`, engine: 'browser', blockAds: false });
    expect(res.status).toBe(200);
    expect(res.body.data.markdown).toContain('Tracked by the analytics script.');
    expect(hits('off').sort()).toEqual(['/js/matomo.js', '/js/widget.js']);
    expect(res.body.data.metadata.adsBlocked).toBeUndefined();
  });

  it('http engine: it fetches only the document, so no request is refused there', async () => {
    const res = await scrape({ url: `${site.url}/news/bridge?case=http`, engine: 'http', blockAds: true });
    expect(res.status).toBe(200);
    expect(res.body.data.markdown).toContain(STORY);
    expect(hits('http')).toEqual([]);
    expect(res.body.data.metadata).not.toHaveProperty('adsBlocked');
  });

  it.each(['browser', 'http'])(
    '%s engine: EasyList’s element hiding leaves the ad container out of markdown, not out of html',
    async (engine) => {
      const on = await scrape({ url: `${otherUrl}/ad-article`, engine, formats: ['markdown', 'html'] });
      expect(on.status).toBe(200);
      expect(on.body.data.markdown).toContain(STORY);
      expect(on.body.data.markdown).not.toContain('Cheap watches');
      expect(decodeScrapeHtml(on.body.data.html as string)).toContain('Cheap watches');
      const off = await scrape({ url: `${otherUrl}/ad-article`, engine, blockAds: false });
      expect(off.status).toBe(200);
      expect(off.body.data.markdown).toContain('Cheap watches');
    },
  );

  it('Firecrawl’s /v2/scrape maps blockAds: on by default, off when false, never named in warning', async () => {
    const firecrawl = async (body: Record<string, unknown>) => {
      const res = await fetch(`${new URL(stack.baseUrl).origin}/v2/scrape`, {
        method: 'POST',
        headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(200);
      return (await res.json()) as { data: { markdown: string; warning?: string } };
    };
    const on = await firecrawl({ url: `${site.url}/news/bridge?case=fc-on` });
    expect(on.data.markdown).toContain(STORY);
    expect(hits('fc-on')).toEqual(['/js/widget.js']);
    const off = await firecrawl({ url: `${site.url}/news/bridge?case=fc-off`, blockAds: false });
    expect(off.data.warning ?? '').not.toContain('blockAds');
    expect(hits('fc-off').sort()).toEqual(['/js/matomo.js', '/js/widget.js']);
  });
});
