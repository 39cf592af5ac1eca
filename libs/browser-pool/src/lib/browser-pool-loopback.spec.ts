import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { GuardProxy } from '@trawl/safe-fetch';
import { startLoopbackHttp, type LoopbackServer } from '@trawl/testing';
import { BrowserPool } from './browser.pool.js';
import { resolveChromiumPath } from './chromium-path.resolver.js';

// Loopback goes through the guarding proxy because the pool says so, not because of a Playwright default: with
// Playwright's switch for that default turned off, a page's request to 127.0.0.1 still meets the proxy (which, with
// no allowlist, refuses it) and never reaches the loopback site.
describe('BrowserPool sends loopback through its proxy by its own rule (real Chromium)', () => {
  const ENV = 'PLAYWRIGHT_DISABLE_FORCED_CHROMIUM_PROXIED_LOOPBACK';
  const before = process.env[ENV];
  let site: LoopbackServer;
  let guardProxy: GuardProxy;
  let pool: BrowserPool;

  beforeAll(async () => {
    process.env[ENV] = '1';
    site = await startLoopbackHttp((_req, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end('<p>x'));
    guardProxy = new GuardProxy();
    await guardProxy.start();
    pool = new BrowserPool({
      executablePath: resolveChromiumPath(process.env.CHROMIUM_PATH),
      guard: async () => undefined, // the pool's own check lets it by: only the proxy stands in the way
      proxyServer: guardProxy.url,
      maxPagesPerBrowser: 1,
    });
  });
  afterAll(async () => {
    await pool?.close();
    await guardProxy?.close();
    await site?.close();
    if (before === undefined) delete process.env[ENV];
    else process.env[ENV] = before;
  });

  it('a page request to 127.0.0.1 is refused by the proxy and never reaches the site', async () => {
    const status = await pool.run(async ({ page }) => (await page.goto(`${site.url}/around-the-proxy`))?.status(), {
      deadline: Date.now() + 20_000,
    });
    expect(status).toBe(403);
    expect(guardProxy.refused).toBeGreaterThanOrEqual(1);
    expect(site.requests).toEqual([]);
  });
});
