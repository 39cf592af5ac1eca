import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { checkUrl, GuardProxy, parseAllowList } from '@trawl/safe-fetch';
import { startLoopbackHttp, type LoopbackServer } from '@trawl/testing';
import { BrowserPool } from './browser.pool.js';
import { resolveChromiumPath } from './chromium-path.resolver.js';

// Issue 21 (mobile): a page's dedicated workers say what the page says, phone or desktop, in both of the pool's
// network modes. Real Chromium, a site on 127.0.0.1 whose page starts a worker; the worker reports its navigator and
// fetches /echo, whose User-Agent header the site writes back. (Shared workers are the browser's own targets and
// keep its launch identity: ADR 0037.)
const allow = parseAllowList('127.0.0.1');
const guard = async (url: string) => void (await checkUrl(url, { allow }));

/** What a worker reports: its navigator and the User-Agent header its own fetch carried. */
const WORKER_REPORT = `async function report() {
  const data = navigator.userAgentData;
  const echo = await (await fetch('/echo')).json();
  return { ua: navigator.userAgent, mobile: data.mobile, platform: data.platform,
    brands: data.brands.map((b) => b.brand).sort(), header: echo };
}`;
const DEDICATED = `${WORKER_REPORT}\nreport().then((r) => postMessage(r));`;
/** A worker that starts the worker above and passes on what it reports. */
const OUTER = "new Worker('/dedicated.js').onmessage = (e) => postMessage(e.data);";
/** The page reports the same, its own fetch included, then starts the worker (`start`: sets `out` to both reports). */
const page = (start: string) => `<!doctype html><title>workers</title><pre id="out"></pre><script>
${WORKER_REPORT}
report().then((mine) => { ${start} });
</script>`;
const PAGES: Record<string, string> = {
  '/dedicated': page(
    "new Worker('/dedicated.js').onmessage = (e) => { out.textContent = JSON.stringify({ page: mine, worker: e.data }); };",
  ),
  '/nested': page(
    "new Worker('/outer.js').onmessage = (e) => { out.textContent = JSON.stringify({ page: mine, worker: e.data }); };",
  ),
};

interface Navigator {
  ua: string;
  mobile: boolean;
  platform: string;
  brands: string[];
}
interface Seen {
  page: Navigator & { header: { ua: string; mobile?: string; platform?: string } };
  worker: Navigator & { header: { ua: string; mobile?: string; platform?: string } };
}

describe.each([
  ['the route handler', false],
  ['the guarding proxy', true],
])('BrowserPool workers behind %s (real Chromium)', (_name, behindProxy) => {
  let site: LoopbackServer;
  let guardProxy: GuardProxy | undefined;
  let pool: BrowserPool;

  beforeAll(async () => {
    site = await startLoopbackHttp(async (req, res) => {
      const path = (req.url ?? '/').split('?')[0];
      if (path === '/echo') {
        const { 'user-agent': ua, 'sec-ch-ua-mobile': mobile, 'sec-ch-ua-platform': platform } = req.headers;
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ua, mobile, platform }));
      } else if (path === '/outer.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(OUTER);
      else if (path === '/dedicated.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(DEDICATED);
      else res.writeHead(200, { 'content-type': 'text/html' }).end(PAGES[path] ?? '<p>none</p>');
    });
    if (behindProxy) {
      guardProxy = new GuardProxy({ allow });
      await guardProxy.start();
    }
    pool = new BrowserPool({
      executablePath: resolveChromiumPath(process.env.CHROMIUM_PATH),
      guard,
      maxPagesPerBrowser: 2,
      ...(guardProxy ? { proxyServer: guardProxy.url } : {}),
    });
  });
  afterAll(async () => {
    await pool?.close();
    await guardProxy?.close();
    await site?.close();
  });

  const probe = (path: string, mobile: boolean) =>
    pool.run(
      async ({ page: tab, identity }) => {
        await tab.goto(`${site.url}${path}?${mobile ? 'phone' : 'desktop'}`);
        await tab.waitForFunction(() => document.getElementById('out')?.textContent !== '');
        return { seen: JSON.parse((await tab.textContent('#out')) ?? '') as Seen, identity };
      },
      { deadline: Date.now() + 20_000, mobile },
    );

  it.each([
    ['a dedicated worker', '/dedicated', true],
    ['a dedicated worker', '/dedicated', false],
    ["a worker's own worker", '/nested', true],
  ])(
    '%s (%s, mobile: %s) says what its page says: user agent, client hints, its fetch headers',
    async (_kind, path, mobile) => {
      const { seen, identity } = await probe(path, mobile);
      expect(seen.page.ua).toBe(identity.userAgent);
      expect(seen.page.mobile).toBe(mobile);
      expect(seen.page.platform).toBe(mobile ? 'Android' : 'Linux');
      expect(seen.page.brands).toContain('Google Chrome');
      const { header: pageSent, ...pageSays } = seen.page;
      const { header: workerSent, ...workerSays } = seen.worker;
      expect(workerSays).toEqual(pageSays);
      expect(pageSent.ua).toBe(identity.userAgent);
      expect(workerSent.ua).toBe(identity.userAgent);
      // Chromium sends no Sec-CH-UA* with a worker's requests (without any emulation too); one sent is the page's.
      expect({ ...pageSent, ...workerSent }).toEqual(pageSent);
    },
  );
});
