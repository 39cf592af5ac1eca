import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { checkUrl, parseAllowList } from '@trawl/safe-fetch';
import { startLoopbackHttp, type LoopbackServer } from '@trawl/testing';
import { BrowserPool } from './browser.pool.js';
import { resolveChromiumPath } from './chromium-path.resolver.js';
import { settlePage } from './settle-page.util.js';

// settlePage on real Chromium: what it waits for, and that a page without scripts waits for nothing (outcomes, not times).
const allow = parseAllowList('127.0.0.1');

describe('settlePage (real Chromium)', () => {
  let site: LoopbackServer;
  let pool: BrowserPool;

  beforeAll(async () => {
    site = await startLoopbackHttp(async (req, res) => {
      const path = req.url ?? '/';
      const html = (body: string) => res.writeHead(200, { 'content-type': 'text/html' }).end(body);
      if (path === '/static') html('<p>static</p>');
      else if (path === '/slow-api') {
        await new Promise((r) => setTimeout(r, 400));
        res.writeHead(200, { 'content-type': 'text/plain' }).end('from the api');
      } else if (path === '/fetches')
        html(
          `<p id="x">empty</p><script>addEventListener('load', () => fetch('/slow-api').then((r) => r.text()).then((t) => (document.getElementById('x').textContent = t)))</script>`,
        );
      else if (path === '/restless')
        html(
          '<p id="x">0</p><script>setInterval(() => (document.getElementById("x").textContent = String(Date.now())), 20)</script>',
        );
      else html('');
    });
    pool = new BrowserPool({
      executablePath: resolveChromiumPath(process.env.CHROMIUM_PATH),
      guard: async (url) => void (await checkUrl(url, { allow })),
    });
  });
  afterAll(async () => {
    await pool?.close();
    await site?.close();
  });

  const settle = (path: string, options = { quietMs: 100, maxMs: 2500 }) =>
    pool.run(
      async ({ page }) => {
        await page.goto(`${site.url}${path}`);
        const outcome = await settlePage(page, options);
        return { outcome, text: await page.textContent('body') };
      },
      { deadline: Date.now() + 20_000 },
    );

  it('takes a page without scripts or frames as settled at once, without waiting for a quiet window', async () => {
    const { outcome, text } = await settle('/static');
    expect(outcome).toMatchObject({ reason: 'quiet', rounds: 1 });
    expect(text).toContain('static');
    // A quiet window longer than the cap: a page that had to wait for one would stop at the cap instead.
    const { outcome: unwaited } = await settle('/static', { quietMs: 10_000, maxMs: 3_000 });
    expect(unwaited).toMatchObject({ reason: 'quiet', rounds: 1 });
  });

  it('waits for a request in flight after load and for what the page does with its answer', async () => {
    const { outcome, text } = await settle('/fetches');
    expect(outcome.reason).toBe('quiet');
    expect(text).toContain('from the api');
  });

  it('stops at the cap for a page that never stops changing, and at the deadline when it comes first', async () => {
    expect((await settle('/restless', { quietMs: 100, maxMs: 300 })).outcome.reason).toBe('max');
    const early = await pool.run(
      async ({ page }) => {
        await page.goto(`${site.url}/restless`);
        return settlePage(page, { quietMs: 100, maxMs: 2500, deadline: Date.now() + 200 });
      },
      { deadline: Date.now() + 20_000 },
    );
    expect(early.reason).toBe('deadline');
  });
});
