#!/usr/bin/env node
// The browser pool alone, A/B: the same loop of pages through BrowserPool.run (as extractor-scrape's browser engine
// runs them: goto, load, one evaluate of the markup) with every task of one tenant (the tab is kept between tasks) and
// with no tenant (the tab is emptied after every task: about:blank and a history reset, as before ADR 0017). Pool
// shaped as the service's (1 browser × 2 pages, images/media/fonts blocked, guarding proxy on), concurrency 4, over
// ../shared/bench/site.mjs. Variants alternate in pairs so both see the same machine load; CPU is the whole process's
// (this Node process and every Chromium process under it, reaped children included), from /proc.
//
// Usage: node bench/scrape/pool-ab.mjs [--pages 200] [--warmup 20] [--pairs 3] [--concurrency 4] [--no-build]
// Env: TRAWL_SHARED_DIR (default ../shared), CHROMIUM_PATH (default /usr/bin/chromium), SKIP_BUILD=1.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const argv = process.argv.slice(2);
const arg = (name, def) => (argv.includes(`--${name}`) ? argv[argv.indexOf(`--${name}`) + 1] : def);
const pages = Number(arg('pages', 200));
const warmup = Number(arg('warmup', 20));
const pairs = Number(arg('pairs', 3));
const concurrency = Number(arg('concurrency', 4));
const skipBuild = argv.includes('--no-build') || process.env.SKIP_BUILD === '1';
const shared = resolve(process.env.TRAWL_SHARED_DIR ?? join(root, '..', 'shared'));
const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const log = (...m) => console.error('[bench:pool-ab]', ...m);

const read = (path) => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
};

/** CPU ticks (user + system, reaped children included) by pid of this process and every process under it. */
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
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, ppid] of parent) if (!tree.has(pid) && tree.has(ppid)) (tree.add(pid), (grew = true));
  }
  return new Map([...tree].map((pid) => [pid, { ticks: ticks.get(pid) ?? 0, kind: kindOf(pid) }]));
}

/** `node`, or Chromium's process type (`browser`, `renderer`, `gpu-process`, `utility` = the network service...). */
function kindOf(pid) {
  if (pid === process.pid) return 'node';
  const cmd = read(`/proc/${pid}/cmdline`).split(/[\0 ]/);
  const type = cmd.find((a) => a.startsWith('--type='))?.slice(7);
  return /chrom/i.test(cmd[0] ?? '') ? `chromium ${type ?? 'browser'}` : (cmd[0] ?? '').split('/').pop() || 'other';
}

/** CPU seconds used since `before` (treeTicks()), in all and by kind of process. */
function cpuSince(before) {
  const byKind = {};
  let all = 0;
  for (const [pid, { ticks, kind }] of treeTicks()) {
    const used = (ticks - (before.get(pid)?.ticks ?? 0)) / 100;
    all += used;
    byKind[kind] = +((byKind[kind] ?? 0) + used).toFixed(2);
  }
  return { all, byKind };
}

function snapshot() {
  return { html: document.documentElement.outerHTML, title: document.title };
}

async function main() {
  if (!skipBuild || !existsSync(join(root, 'dist/libs/browser-pool/src/index.js'))) {
    log('building');
    execFileSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
  }
  const { BrowserPool } = await import(pathToFileURL(join(root, 'dist/libs/browser-pool/src/index.js')).href);
  const { GuardProxy, checkUrl, parseAllowList } = await import(
    pathToFileURL(join(root, 'dist/libs/safe-fetch/src/index.js')).href
  );
  const site = spawn(process.execPath, [join(shared, 'bench', 'site.mjs'), '--port', '0'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const { port } = await new Promise((ok) => site.stdout.once('data', (d) => ok(JSON.parse(String(d).split('\n')[0]))));
  const base = `http://127.0.0.1:${port}`;
  const allow = parseAllowList('127.0.0.1');
  const proxy = new GuardProxy({ allow });
  await proxy.start();

  const runVariant = async (variant) => {
    const tenant = variant === 'one-tenant' ? 'bench-caller' : undefined;
    const pool = new BrowserPool({
      executablePath: chromium,
      guard: async (url) => void (await checkUrl(url, { allow })),
      proxyServer: proxy.url,
    });
    try {
      await pool.warmUp();
      const loop = async (count, offset) => {
        let next = 0;
        await Promise.all(
          Array.from({ length: concurrency }, async () => {
            while (next < count) {
              const i = offset + next++;
              await pool.run(
                async ({ page }) => {
                  await page.goto(`${base}/p/${i % 200}`, { waitUntil: 'load' });
                  return page.evaluate(snapshot);
                },
                { deadline: Date.now() + 30_000, tenant },
              );
            }
          }),
        );
      };
      await loop(warmup, 0);
      const load = loadavg()[0];
      const ticks0 = treeTicks();
      const t0 = performance.now();
      await loop(pages, warmup);
      const seconds = (performance.now() - t0) / 1000;
      const { all: cpuSeconds, byKind } = cpuSince(ticks0);
      const stats = pool.stats();
      return {
        variant,
        pages,
        seconds: +seconds.toFixed(2),
        pagesPerSecond: +(pages / seconds).toFixed(2),
        cpuSeconds: +cpuSeconds.toFixed(1),
        cpuMsPerPage: Math.round((cpuSeconds * 1000) / pages),
        cpuMsPerPageByKind: Object.fromEntries(
          Object.entries(byKind).map(([kind, s]) => [kind, Math.round((s * 1000) / pages)]),
        ),
        tabsReset: stats.tabsReset,
        failed: stats.tasksFailed,
        load1: +load.toFixed(1),
      };
    } finally {
      await pool.close();
    }
  };

  const results = [];
  try {
    for (let p = 0; p < pairs; p++) {
      for (const variant of p % 2 === 0 ? ['no-tenant', 'one-tenant'] : ['one-tenant', 'no-tenant']) {
        const r = await runVariant(variant);
        log(JSON.stringify(r));
        results.push(r);
      }
    }
  } finally {
    await proxy.close();
    site.kill('SIGTERM');
  }
  const summary = {};
  for (const variant of ['no-tenant', 'one-tenant']) {
    const rs = results.filter((r) => r.variant === variant);
    const sum = (k) => rs.reduce((n, r) => n + r[k], 0);
    summary[variant] = {
      runs: rs.length,
      cpuSeconds: +sum('cpuSeconds').toFixed(1),
      cpuMsPerPage: Math.round((sum('cpuSeconds') * 1000) / (pages * rs.length)),
      pagesPerSecond: +((pages * rs.length) / sum('seconds')).toFixed(2),
    };
  }
  console.log(JSON.stringify({ date: new Date().toISOString(), pages, concurrency, pairs, results, summary }, null, 1));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
