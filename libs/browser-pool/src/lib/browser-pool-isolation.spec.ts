import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { checkUrl, parseAllowList } from '@trawl/safe-fetch';
import { startLoopbackHttp, type LoopbackServer } from '@trawl/testing';
import { BrowserPool } from './browser.pool.js';
import { resolveChromiumPath } from './chromium-path.resolver.js';

// Issue 8, must-show 3c/3d: a page calling history.back() or reading history.length learns nothing of the task before
// it; a popup does not outlive its task. Real Chromium; one page slot, so consecutive tasks share a context.
const allow = parseAllowList('127.0.0.1');
const soon = () => Date.now() + 20_000;

describe('BrowserPool isolation between tasks (real Chromium)', () => {
  let site: LoopbackServer;
  const pools: BrowserPool[] = [];
  let pings = 0;

  const newPool = () => {
    const pool = new BrowserPool({
      executablePath: resolveChromiumPath(process.env.CHROMIUM_PATH),
      guard: async (url) => void (await checkUrl(url, { allow })),
      maxPagesPerBrowser: 1,
    });
    pools.push(pool);
    return pool;
  };

  beforeAll(async () => {
    site = await startLoopbackHttp(async (req, res) => {
      const path = req.url ?? '/';
      const html = (body: string) => res.writeHead(200, { 'content-type': 'text/html' }).end(body);
      if (path.startsWith('/secret')) html(`<title>secret</title><p>tenant-A-secret ${path}</p>`);
      else if (path === '/goes-back') html('<title>back</title><p>page B</p><script>history.back()</script>');
      else if (path === '/counts-history')
        html('<title>count</title><p>page B</p><script>document.title = String(history.length)</script>');
      else if (path === '/opens-popup') html(`<p>opener</p><script>window.open('/popup')</script>`);
      else if (path === '/popup') html('<p>popup</p><script>setInterval(() => fetch("/ping"), 50)</script>');
      else if (path === '/ping') {
        pings++;
        html('');
      } else html(`<p>${path}</p>`);
    });
  });
  afterAll(async () => {
    await Promise.all(pools.map((p) => p.close()));
    await site?.close();
  });

  for (const session of [undefined, 'tenant-b']) {
    const what = session ? 'in a named session' : "in the pool's own session";
    it(`a page calling history.back() does not get the previous task's page (${what})`, async () => {
      const pool = newPool();
      const secret = `/secret-of-${session ?? 'pool'}`;
      await pool.run(async ({ page }) => void (await page.goto(`${site.url}${secret}`)), { deadline: soon(), session });
      const html = await pool.run(
        async ({ page }) => {
          await page.goto(`${site.url}/goes-back`);
          await page.waitForTimeout(300); // history.back() has had its chance to navigate
          return page.content();
        },
        { deadline: soon(), session },
      );
      expect(html).not.toContain('tenant-A-secret');
      expect(site.requests.filter((r) => r.url === secret)).toHaveLength(1);
      expect(pool.stats().contextsReused).toBeGreaterThanOrEqual(1); // the same context served both tasks
    });

    it(`history.length is the same whatever the previous task did (${what})`, async () => {
      const pool = newPool();
      const count = async (visits: number) => {
        await pool.run(
          async ({ page }) => {
            for (let i = 0; i < visits; i++) await page.goto(`${site.url}/secret-${visits}-${i}`);
          },
          { deadline: soon(), session },
        );
        return pool.run(
          async ({ page }) => {
            await page.goto(`${site.url}/counts-history`);
            return page.title();
          },
          { deadline: soon(), session },
        );
      };
      expect(await count(1)).toBe(await count(4));
    });

    it(`a popup opened by a task does not outlive it (${what})`, async () => {
      const pool = newPool();
      await pool.run(
        async ({ page }) => {
          const opened = page.context().waitForEvent('page');
          await page.goto(`${site.url}/opens-popup`);
          await (await opened).waitForLoadState('load');
          const started = pings;
          for (let i = 0; i < 100 && pings === started; i++) await new Promise((r) => setTimeout(r, 20));
        },
        { deadline: soon(), session },
      );
      expect(pings).toBeGreaterThan(0); // the popup ran
      const pages = await pool.run(
        async ({ page }) => (page.context().browser()?.contexts() ?? []).flatMap((c) => c.pages().map((p) => p.url())),
        {
          deadline: soon(),
          session,
        },
      );
      expect(pages.some((url) => url.includes('/popup'))).toBe(false);
      const before = pings;
      await new Promise((r) => setTimeout(r, 300));
      expect(pings).toBe(before);
    });
  }
});
