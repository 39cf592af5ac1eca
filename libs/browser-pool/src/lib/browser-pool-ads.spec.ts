import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { GuardProxy, parseAllowList, systemResolver } from '@trawl/safe-fetch';
import { startLoopbackHttp, type LoopbackServer } from '@trawl/testing';
import { chromium, type BrowserType, type Page } from 'playwright-core';
import { AdBlocker } from './ad-blocker.service.js';
import { BrowserPool } from './browser.pool.js';
import { resolveChromiumPath } from './chromium-path.resolver.js';

// blockAds in the pool, both ways Chromium reaches the web: behind the guarding proxy (production: CDP Fetch in the
// browser) and without it (the route handler). The ad host and a tag manager's host are names of the tracker list
// that resolve here to the loopback site (the proxy's resolver, or Chromium's host rules), so "the ad script never
// reached the server" is read off the server's own request log, by Host header.
const AD_HOST = 'securepubads.g.doubleclick.net'; // advertising: `||securepubads.g.doubleclick.net^$3p`
const TAG_HOST = 'www.googletagmanager.com'; // gtm.js is filed under utilities: it loads
const EMBED_HOST = 'player.embed.example'; // another site: its iframe is cross-site to the page's 127.0.0.1
const LOCAL = new Set([AD_HOST, TAG_HOST, EMBED_HOST]);

function articleHtml(port: number, task: string): string {
  return [
    '<title>Story</title><main><p id="story">The story itself.</p><p id="app"></p></main>',
    `<script src="/app.js?task=${task}"></script>`,
    `<script src="http://${AD_HOST}:${port}/tag/js/gpt.js?task=${task}"></script>`,
    `<script src="http://${TAG_HOST}:${port}/gtm.js?id=GTM-T1&task=${task}"></script>`,
  ].join('\n');
}

/** A page whose cross-site iframe (another site's player) loads its own script and an ad tag. */
function embedHtml(path: string, port: number, task: string): string {
  if (path === '/with-embed') {
    return `<title>Story</title><p id="story">The story.</p><iframe src="http://${EMBED_HOST}:${port}/embed?task=${task}"></iframe>`;
  }
  return [
    '<title>Player</title><p id="player">player</p>',
    `<script src="/player.js?task=${task}"></script>`,
    `<script src="http://${AD_HOST}:${port}/tag/js/gpt.js?task=${task}"></script>`,
  ].join('\n');
}

describe.each([
  ['behind the guarding proxy (CDP Fetch)', true],
  ['without a proxy (route handler)', false],
])('BrowserPool blockAds %s (real Chromium)', (_name, behindProxy) => {
  let site: LoopbackServer;
  let guardProxy: GuardProxy | undefined;
  let pool: BrowserPool;

  /** The task ids whose request for `path` on `host` reached the site. */
  const reached = (host: string, path: string): string[] =>
    site.requests
      .filter((r) => r.headers.host?.split(':')[0] === host && r.url.startsWith(path))
      .map((r) => new URL(r.url, 'http://x').searchParams.get('task') ?? '');

  beforeAll(async () => {
    site = await startLoopbackHttp((req, res) => {
      const path = (req.url ?? '').split('?')[0];
      const headers = { 'cache-control': 'no-store' };
      if (path === '/with-embed' || path === '/embed') {
        const task = new URL(req.url ?? '', 'http://x').searchParams.get('task') ?? '';
        res.writeHead(200, { ...headers, 'content-type': 'text/html' }).end(embedHtml(path, site.port, task));
      } else if (path === '/article') {
        const task = new URL(req.url ?? '', 'http://x').searchParams.get('task') ?? '';
        res.writeHead(200, { ...headers, 'content-type': 'text/html' }).end(articleHtml(site.port, task));
      } else if (path === '/app.js') {
        res
          .writeHead(200, { ...headers, 'content-type': 'text/javascript' })
          .end('document.getElementById("app").textContent = "first-party script ran";');
      } else res.writeHead(200, { ...headers, 'content-type': 'text/javascript' }).end('window.loaded = true;');
    });
    const adBlocker = new AdBlocker();
    await adBlocker.ready();
    const executablePath = resolveChromiumPath(process.env.CHROMIUM_PATH);
    if (behindProxy) {
      guardProxy = new GuardProxy({
        allow: parseAllowList('127.0.0.1'),
        resolve: async (host) => (LOCAL.has(host) ? ['127.0.0.1'] : systemResolver(host)),
      });
      await guardProxy.start();
    }
    // Without the proxy Chromium resolves names itself: its host rules send the list's hosts to the loopback site.
    const rules = `--host-resolver-rules=${[...LOCAL].map((h) => `MAP ${h} 127.0.0.1`).join(',')}`;
    const launcher = Object.create(chromium, {
      launch: {
        value: (options: Parameters<BrowserType['launch']>[0]) =>
          chromium.launch({ ...options, args: [...(options?.args ?? []), rules] }),
      },
    }) as BrowserType;
    pool = new BrowserPool({
      executablePath,
      guard: async () => undefined,
      adBlocker,
      maxPagesPerBrowser: 2,
      ...(guardProxy ? { proxyServer: guardProxy.url } : { launcher }),
    });
  });
  afterAll(async () => {
    await pool?.close();
    await guardProxy?.close();
    await site?.close();
  });

  const tabs = new Map<string, Page>();
  /** Until the pool has put the last task's tab back (its cleanup runs after the task's answer). */
  const released = async () => {
    while (pool.stats().busyPages > 0) await new Promise((r) => setTimeout(r, 20));
  };
  const scrape = (task: string, blockAds: boolean) =>
    pool.run(
      async ({ page, adsBlocked }) => {
        tabs.set(task, page);
        await page.goto(`${site.url}/article?task=${task}`, { waitUntil: 'load' });
        return { app: await page.textContent('#app'), story: await page.textContent('#story'), ads: adsBlocked() };
      },
      { deadline: Date.now() + 20_000, tenant: 'tenant-a', blockAds },
    );

  it('with blockAds the ad script never reaches the server; the page and its own script are intact', async () => {
    const result = await scrape('on-1', true);
    expect(result).toEqual({ app: 'first-party script ran', story: 'The story itself.', ads: 1 });
    expect(reached(AD_HOST, '/tag/js/gpt.js')).not.toContain('on-1');
    expect(reached('127.0.0.1', '/app.js')).toContain('on-1');
    expect(reached(TAG_HOST, '/gtm.js')).toContain('on-1'); // a category that loads
  });

  it('without blockAds the same tab loads the ad script, and the next task with it blocks it again', async () => {
    await released();
    const off = await scrape('off-1', false);
    expect(off).toEqual({ app: 'first-party script ran', story: 'The story itself.', ads: 0 });
    expect(reached(AD_HOST, '/tag/js/gpt.js')).toContain('off-1');
    await released();
    const on = await scrape('on-2', true);
    expect(on.ads).toBe(1);
    expect(reached(AD_HOST, '/tag/js/gpt.js')).not.toContain('on-2');
    expect(tabs.get('off-1')).toBe(tabs.get('on-1')); // one tab, switched per task
    expect(tabs.get('on-2')).toBe(tabs.get('off-1'));
  });

  it('holds with caller headers scoped to the page (its own route beside the interception)', async () => {
    const result = await pool.run(
      async ({ page, adsBlocked }) => {
        await page.goto(`${site.url}/article?task=headers`, { waitUntil: 'load' });
        return { app: await page.textContent('#app'), ads: adsBlocked() };
      },
      {
        deadline: Date.now() + 20_000,
        tenant: 'tenant-a',
        blockAds: true,
        headers: { 'x-caller': 'yes' },
        headersFor: `${site.url}/article?task=headers`,
      },
    );
    expect(result).toEqual({ app: 'first-party script ran', ads: 1 });
    expect(reached(AD_HOST, '/tag/js/gpt.js')).not.toContain('headers');
    const page = site.requests.find((r) => r.url === '/article?task=headers');
    expect(page?.headers['x-caller']).toBe('yes');
  });

  it("covers a cross-site iframe: the frame's ad tag is refused, its own script loads", async () => {
    const embedded = async (task: string, blockAds: boolean) =>
      pool.run(
        async ({ page, adsBlocked }) => {
          await page.goto(`${site.url}/with-embed?task=${task}`, { waitUntil: 'load' });
          const frame = page.frames().find((f) => f.url().includes('/embed'));
          return { frameHost: frame ? new URL(frame.url()).hostname : '', ads: adsBlocked() };
        },
        { deadline: Date.now() + 20_000, tenant: 'tenant-a', blockAds },
      );
    await released();
    const on = await embedded('embed-on', true);
    expect(on).toEqual({ frameHost: EMBED_HOST, ads: 1 });
    expect(reached(EMBED_HOST, '/player.js')).toContain('embed-on');
    expect(reached(AD_HOST, '/tag/js/gpt.js')).not.toContain('embed-on');
    await released();
    const off = await embedded('embed-off', false); // the same page loads the tag when asked to
    expect(off.ads).toBe(0);
    expect(reached(AD_HOST, '/tag/js/gpt.js')).toContain('embed-off');
  });

  it('is per task: two tasks at once on one browser, one with blockAds and one without', async () => {
    const [on, off] = await Promise.all([scrape('both-on', true), scrape('both-off', false)]);
    expect([on.ads, off.ads]).toEqual([1, 0]);
    const ads = reached(AD_HOST, '/tag/js/gpt.js');
    expect(ads).toContain('both-off');
    expect(ads).not.toContain('both-on');
    expect(reached('127.0.0.1', '/app.js')).toEqual(expect.arrayContaining(['both-on', 'both-off']));
  });
});
