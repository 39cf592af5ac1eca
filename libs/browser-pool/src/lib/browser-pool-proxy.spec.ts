import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { TrawlError } from '@trawl/contracts';
import { checkUrl, GuardProxy, parseAllowList, ProxyRotation } from '@trawl/safe-fetch';
import { startForwardProxy, startLoopbackHttp, type LoopbackServer, type TestForwardProxy } from '@trawl/testing';
import { BrowserPool } from './browser.pool.js';
import { resolveChromiumPath } from './chromium-path.resolver.js';

// Must-show 3 (issue 12): a browser request goes through the configured upstream proxy (a loopback proxy started here
// that wants credentials and counts connections), chained behind the SSRF-guarding proxy, which still refuses a
// private address before anything reaches the upstream. 10.0.0.1 is refused as a literal: nothing ever connects to it.
const allow = parseAllowList('127.0.0.1');
const guard = async (url: string) => void (await checkUrl(url, { allow }));
const soon = () => Date.now() + 20_000;

describe('BrowserPool through upstream proxies (real Chromium)', () => {
  let site: LoopbackServer;
  let first: TestForwardProxy;
  let second: TestForwardProxy;
  let guardProxy: GuardProxy;
  let rotation: ProxyRotation;
  let pool: BrowserPool;
  const outcomes: string[] = [];

  beforeAll(async () => {
    site = await startLoopbackHttp(async (req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<title>via</title><p>${req.url}</p>`);
    });
    first = await startForwardProxy({ user: 'op', pass: 'first-secret' });
    second = await startForwardProxy({ user: 'op', pass: 'second-secret' });
    guardProxy = new GuardProxy({ allow, onUpstream: (p, outcome) => outcomes.push(`${p} ${outcome}`) });
    await guardProxy.start();
    rotation = new ProxyRotation([first.url, second.url], { cooldownMs: 60_000 });
    pool = new BrowserPool({
      executablePath: resolveChromiumPath(process.env.CHROMIUM_PATH),
      guard,
      proxyServer: guardProxy.url,
      maxPagesPerBrowser: 1,
      upstreamProxies: {
        next: (country, scope) => rotation.next(scope ?? '', country),
        markBlocked: (p, scope) => rotation.markBlocked(p, scope ?? ''),
        laneFor: (p) => guardProxy.laneFor(p),
      },
    });
  });
  afterAll(async () => {
    await pool?.close();
    await guardProxy?.close();
    await first?.close();
    await second?.close();
    await site?.close();
  });

  it('sends the page request through the upstream proxy, with its credentials', async () => {
    const text = await pool.run(
      async ({ page }) => {
        await page.goto(`${site.url}/through-proxy`);
        return page.textContent('p');
      },
      { deadline: soon(), session: 'tenant-a:1' },
    );
    expect(text).toBe('/through-proxy');
    expect(first.connections).toBeGreaterThanOrEqual(1);
    expect(first.calls).toContainEqual({ method: 'GET', target: `${site.url}/through-proxy`, authorized: true });
    expect(outcomes).toContain(`127.0.0.1:${first.port} ok`);
    expect(outcomes.join()).not.toContain('secret');
  });

  it('still refuses a private address in the guard, before anything reaches the upstream proxy', async () => {
    const before = first.calls.length + second.calls.length;
    const err = await pool
      .run(async ({ page }) => void (await page.goto('http://10.0.0.1/internal-secret')), {
        deadline: soon(),
        session: 'tenant-a:1',
      })
      .catch((e: unknown) => e);
    expect((err as TrawlError).code).toBe('URL_NOT_ALLOWED');
    expect(first.calls.length + second.calls.length).toBe(before);

    // The guarding proxy's lane alone (the pool's own check switched off): the request is refused there.
    const open = new BrowserPool({
      executablePath: resolveChromiumPath(process.env.CHROMIUM_PATH),
      guard: async () => undefined,
      proxyServer: guardProxy.url,
      upstreamProxies: { next: () => first.url, markBlocked: () => undefined, laneFor: (p) => guardProxy.laneFor(p) },
    });
    try {
      const refusedBefore = guardProxy.refused;
      const answer = await open.run(
        async ({ page }) => {
          const response = await page.goto('http://10.0.0.1/internal-secret');
          return {
            status: response?.status(),
            refused: response?.headers()['x-trawl-refused'],
            body: await page.textContent('body'),
          };
        },
        { deadline: soon(), session: 'tenant-x' },
      );
      expect(answer.status).toBe(403);
      expect(answer.refused).toBe('1');
      // The proxy's own answer, word for word: it names the host and the class of address, nothing it resolved.
      expect(answer.body).toBe('host 10.0.0.1 is not allowed: not a public address');
      expect(guardProxy.refused).toBeGreaterThan(refusedBefore);
      expect([...first.calls, ...second.calls].some((c) => c.target.includes('10.0.0.1'))).toBe(false);
    } finally {
      await open.close();
    }
  });

  // ADR 0027: a render session serves one upstream host (`proxyScope`); its block rests the proxy for that host only.
  it('moves a blocked session to another proxy with a new context, and cools the proxy down for its host only', async () => {
    const host = new URL(site.url).host;
    const visit = (session: string, proxyScope: string, path: string) =>
      pool.run(async ({ page }) => void (await page.goto(`${site.url}${path}`)), {
        deadline: soon(),
        session,
        proxyScope,
      });
    const via = (path: string) =>
      [first, second].filter((p) => p.calls.some((c) => c.target === `${site.url}${path}`)).map((p) => p.url);

    await visit('upstream-a:0', host, '/before-block');
    const [blocked] = via('/before-block'); // one of the two, as the round-robin's cursor stood
    const other = blocked === first.url ? second.url : first.url;
    pool.retireSession('upstream-a:0', { blocked: true });
    expect(rotation.resting(host)).toEqual([blocked]);
    expect(rotation.resting()).toEqual([]); // not for everyone
    expect(rotation.resting('elsewhere.test')).toEqual([]);

    await visit('upstream-b:0', 'elsewhere.test', '/other-host-1'); // round-robin: the other one
    await visit('upstream-a:1', host, '/after-block'); // the cursor is at the blocked one, resting for this host
    await visit('upstream-c:0', 'elsewhere.test', '/other-host-2'); // the cursor is at the blocked one: free here
    expect(via('/other-host-1')).toEqual([other]);
    expect(via('/after-block')).toEqual([other]);
    expect(via('/other-host-2')).toEqual([blocked]);
  });
});
