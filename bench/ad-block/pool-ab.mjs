#!/usr/bin/env node
// What blockAds costs the browser pool (ADR 0030): the same loop of pages through BrowserPool.run behind the guarding
// proxy (as extractor-scrape runs it), with blockAds on (every request pauses in the pool's CDP Fetch handler and is
// decided) and off (only blocked resource types pause). Pool 1 browser × 2 pages, images/media/fonts blocked, one
// tenant, concurrency 2. The page: a 20 KB article with 15 first-party scripts and stylesheets and, with --ads, 3
// ad/tracker scripts of the list on names the proxy resolves to the loopback site. Variants alternate in blocks so both
// see the same machine load; CPU is this Node process and every Chromium process under it, from /proc.
// Usage: npm run build && node bench/ad-block/pool-ab.mjs [--pages 100] [--pairs 3] [--ads]
import { readFileSync, readdirSync } from 'node:fs';
import { createServer } from 'node:http';
import { loadavg } from 'node:os';
import { AdBlocker, BrowserPool } from '../../dist/libs/browser-pool/src/index.js';
import { GuardProxy, parseAllowList, systemResolver } from '../../dist/libs/safe-fetch/src/index.js';

const argv = process.argv.slice(2);
const arg = (name, def) => (argv.includes(`--${name}`) ? Number(argv[argv.indexOf(`--${name}`) + 1]) : def);
const pages = arg('pages', 100);
const pairs = arg('pairs', 3);
const ads = argv.includes('--ads');
const AD_HOSTS = ['securepubads.g.doubleclick.net', 'pagead2.googlesyndication.com', 'static.hotjar.com'];

const read = (p) => {
  try {
    return readFileSync(p, 'utf8');
  } catch {
    return '';
  }
};
/** CPU ticks (user + system, reaped children included) of this process and every process under it. */
function treeTicks() {
  const parent = new Map();
  const ticks = new Map();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    const stat = read(`/proc/${d}/stat`);
    if (!stat) continue;
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    parent.set(Number(d), Number(f[1]));
    ticks.set(Number(d), Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]));
  }
  const tree = new Set([process.pid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const [pid, ppid] of parent) if (!tree.has(pid) && tree.has(ppid)) (tree.add(pid), (grew = true));
  }
  return [...tree].reduce((n, pid) => n + (ticks.get(pid) ?? 0), 0);
}

const para = '<p>' + 'The harbour bridge reopens on Monday after eighteen months of repairs. '.repeat(6) + '</p>';
const server = createServer((req, res) => {
  const path = (req.url ?? '/').split('?')[0];
  if (path.endsWith('.js')) return void res.writeHead(200, { 'content-type': 'text/javascript' }).end('window.x = 1;');
  if (path.endsWith('.css')) return void res.writeHead(200, { 'content-type': 'text/css' }).end('p { margin: 0 }');
  const port = server.address().port;
  const own = Array.from({ length: 15 }, (_, i) =>
    i % 2 ? `<script src="/js/s${i}.js"></script>` : `<link rel="stylesheet" href="/css/s${i}.css">`,
  ).join('');
  const third = ads ? AD_HOSTS.map((h) => `<script src="http://${h}:${port}/ad.js"></script>`).join('') : '';
  res.writeHead(200, { 'content-type': 'text/html' }).end(`<title>Bridge</title>${own}${para.repeat(40)}${third}`);
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const site = `http://127.0.0.1:${server.address().port}`;
const proxy = new GuardProxy({
  allow: parseAllowList('127.0.0.1'),
  resolve: async (h) => (AD_HOSTS.includes(h) ? ['127.0.0.1'] : systemResolver(h)),
});
await proxy.start();
const adBlocker = new AdBlocker();
await adBlocker.ready();
const pool = new BrowserPool({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  guard: async () => undefined,
  proxyServer: proxy.url,
  maxPagesPerBrowser: 2,
  adBlocker,
});
await pool.warmUp();

async function loop(blockAds, n) {
  let next = 0;
  let blocked = 0;
  const worker = async () => {
    while (next < n) {
      const i = next++;
      const refused = await pool.run(
        async ({ page, adsBlocked }) => {
          await page.goto(`${site}/story/${i}`, { waitUntil: 'load' });
          await page.evaluate(() => document.documentElement.outerHTML.length);
          return adsBlocked();
        },
        { deadline: Date.now() + 30_000, tenant: 'bench', blockAds },
      );
      blocked += refused; // not `blocked += await ...`: that reads `blocked` before the await, losing the other worker's
    }
  };
  const t0 = treeTicks();
  const start = performance.now();
  await Promise.all([worker(), worker()]);
  return { ms: performance.now() - start, ticks: treeTicks() - t0, blocked };
}

await loop(true, 10);
await loop(false, 10);
const totals = { on: { ms: 0, ticks: 0 }, off: { ms: 0, ticks: 0 } };
for (let p = 1; p <= pairs; p++) {
  for (const [name, on] of p % 2
    ? [
        ['on', true],
        ['off', false],
      ]
    : [
        ['off', false],
        ['on', true],
      ]) {
    const r = await loop(on, pages);
    totals[name].ms += r.ms;
    totals[name].ticks += r.ticks;
    console.log(
      JSON.stringify({
        pair: p,
        blockAds: on,
        ads,
        pages,
        cpuMsPerPage: +((r.ticks * 10) / pages).toFixed(1),
        wallMsPerPage: +(r.ms / pages).toFixed(1),
        adsBlocked: r.blocked,
        load: +loadavg()[0].toFixed(1),
      }),
    );
  }
}
const per = (t) => ({
  cpuMsPerPage: +((t.ticks * 10) / (pages * pairs)).toFixed(1),
  wallMsPerPage: +(t.ms / (pages * pairs)).toFixed(1),
});
console.log(JSON.stringify({ summary: true, ads, on: per(totals.on), off: per(totals.off) }));
await pool.close();
await proxy.close();
server.close();
