#!/usr/bin/env node
// Crawl benchmark (bench/README.md, "crawl"): Trawl's crawl (gateway, task-service, extractor-scrape, Redis, NATS,
// all from dist/ as their own processes) against Crawlee on the same local site (../shared/bench/site.mjs), in ONE
// run: the HTTP engine against CheerioCrawler, the browser engine against PlaywrightCrawler (same Chromium), each from
// /p/0 following same-host links until `--pages` pages, at the same concurrency; then the browser engine with two
// extractor-scrape replicas against one. Prints pages/s and the peak memory of each side's process tree (sampled from
// /proc every 50 ms; ours includes Redis and NATS), one JSON line per run and a summary line.
//
// Usage: node bench/crawl/run.mjs [--pages 200] [--concurrency 4] [--replica-concurrency 8] [--no-build]
// Env: TRAWL_SHARED_DIR (default ../shared), CHROMIUM_PATH (default /usr/bin/chromium), SKIP_BUILD=1.
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const here = dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);
const arg = (name, def) => (argv.includes(`--${name}`) ? argv[argv.indexOf(`--${name}`) + 1] : def);
const pages = Number(arg('pages', 200));
const concurrency = Number(arg('concurrency', 4));
const replicaConcurrency = Number(arg('replica-concurrency', 8));
const skipBuild = argv.includes('--no-build') || process.env.SKIP_BUILD === '1';
const shared = resolve(process.env.TRAWL_SHARED_DIR ?? join(root, '..', 'shared'));
const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const API_KEY = 'bench-crawl-key';
const log = (...m) => console.error('[bench:crawl]', ...m);
const started = [];

function freePort() {
  return new Promise((ok, ko) => {
    const s = createServer().once('error', ko);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => ok(port));
    });
  });
}

function start(cmd, args, opts = {}) {
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...opts });
  let out = '';
  child.stdout.on('data', (d) => (out = (out + d).slice(-200_000)));
  child.stderr.on('data', (d) => (out = (out + d).slice(-200_000)));
  const proc = { child, output: () => out, exited: new Promise((r) => child.once('exit', r)) };
  started.push(proc);
  return proc;
}

async function stop(proc) {
  if (proc.child.exitCode !== null || proc.child.signalCode !== null) return;
  proc.child.kill('SIGTERM');
  const t = setTimeout(() => proc.child.kill('SIGKILL'), 15_000);
  await proc.exited;
  clearTimeout(t);
}

async function waitFor(check, what, ms = 60_000) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await check().catch(() => undefined);
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

// ---- memory of a process tree, from /proc (as bench/scrape)
function treePids(rootPids) {
  const parent = new Map();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      parent.set(Number(d), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // exited meanwhile
    }
  }
  const inTree = new Set(rootPids.filter(Boolean));
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, ppid] of parent) if (!inTree.has(pid) && inTree.has(ppid)) (inTree.add(pid), (grew = true));
  }
  return [...inTree];
}
const read = (path) => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
};
function sampleTree(rootPids) {
  let rss = 0;
  let pss = 0;
  const tick = () => {
    let r = 0;
    let p = 0;
    for (const pid of treePids(rootPids())) {
      r += Number(read(`/proc/${pid}/statm`).split(' ')[1] ?? 0) * 4096;
      p += Number(/^Pss:\s+(\d+) kB/m.exec(read(`/proc/${pid}/smaps_rollup`))?.[1] ?? 0) * 1024;
    }
    rss = Math.max(rss, r);
    pss = Math.max(pss, p);
  };
  const timer = setInterval(tick, 50);
  return () => {
    clearInterval(timer);
    tick();
    return { peakRssMB: Math.round(rss / 2 ** 20), peakPssMB: Math.round(pss / 2 ** 20) };
  };
}

// ---- preparation
function build() {
  if (skipBuild && existsSync(join(root, 'dist/apps/task-service/src/main.js'))) return;
  log('building');
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
}

/** Crawlee (Cheerio and Playwright crawlers) installed under tmp/ from bench/crawl/peer.package.json (cached). */
function installPeer() {
  const dir = join(root, 'tmp', 'bench-crawl-peer');
  const pkg = readFileSync(join(here, 'peer.package.json'));
  const stamp = createHash('sha256').update(pkg).digest('hex');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), pkg);
  cpSync(join(here, 'peer-crawlee-crawl.mjs'), join(dir, 'peer-crawlee-crawl.mjs'));
  const stampFile = join(dir, '.installed');
  if (!existsSync(stampFile) || readFileSync(stampFile, 'utf8') !== stamp || !existsSync(join(dir, 'node_modules'))) {
    log('installing the peer (Crawlee) in', dir);
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir, stdio: 'inherit' });
    writeFileSync(stampFile, stamp);
  }
  return dir;
}

// ---- our side: the stack from dist/
async function startOurs(scrapers) {
  const redisPort = await freePort();
  const redisDir = mkdtempSync(join(tmpdir(), 'bench-crawl-redis-'));
  const redis = start('redis-server', [
    '--port',
    String(redisPort),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--dir',
    redisDir,
  ]);
  const natsPort = await freePort();
  const natsDir = mkdtempSync(join(tmpdir(), 'bench-crawl-nats-'));
  const nats = start('nats-server', ['-a', '127.0.0.1', '-p', String(natsPort), '-js', '-sd', natsDir]);
  await waitFor(async () => nats.output().includes('Server is ready'), 'nats-server');
  await waitFor(async () => redis.output().includes('Ready to accept connections'), 'redis-server');
  const port = await freePort();
  const env = {
    ...process.env,
    NATS_URL: `nats://127.0.0.1:${natsPort}`,
    REDIS_URL: `redis://127.0.0.1:${redisPort}`,
    API_KEYS: API_KEY,
    SSRF_ALLOW_HOSTS: '127.0.0.1',
    CHROMIUM_PATH: chromium,
    LOG_LEVEL: 'warn',
    OTEL_SDK_DISABLED: 'true',
    PORT: String(port),
    HOST: '127.0.0.1',
    CRAWL_IDLE_MS: '20',
  };
  const service = async (name, i = 1) => {
    const metrics = await freePort();
    const proc = start(process.execPath, [join(root, `dist/apps/${name}/src/main.js`)], {
      cwd: root,
      env: { ...env, METRICS_PORT: String(metrics), INSTANCE_ID: `bench-${name}-${i}` },
    });
    if (name !== 'gateway') {
      await waitFor(async () => (await fetch(`http://127.0.0.1:${metrics}/health/ready`)).ok, `${name} ready`, 90_000);
    }
    return proc;
  };
  const procs = [redis, nats];
  procs.push(await service('task-service'));
  for (let i = 1; i <= scrapers; i++) procs.push(await service('extractor-scrape', i));
  procs.push(await service('gateway'));
  await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/health/ready`)).ok, 'gateway ready');
  return {
    baseUrl: `http://127.0.0.1:${port}/api/openapi/v1`,
    pids: () => procs.map((p) => p.child.pid),
    async stop() {
      for (const p of procs.reverse()) await stop(p);
      rmSync(redisDir, { recursive: true, force: true });
      rmSync(natsDir, { recursive: true, force: true });
    },
  };
}

async function api(stack, method, path, body) {
  const res = await fetch(`${stack.baseUrl}${path}`, {
    method,
    headers: { 'x-api-key': API_KEY, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json).slice(0, 500)}`);
  return json.data;
}

async function runOurs(base, { engine, scrapers, conc }) {
  const stack = await startOurs(scrapers);
  try {
    const sampler = sampleTree(stack.pids);
    const t0 = performance.now();
    const { id } = await api(stack, 'POST', '/crawl', {
      url: `${base}/p/0`,
      limit: pages,
      maxDepth: 100,
      sitemap: 'skip',
      maxConcurrency: conc,
      scrapeOptions: { engine, formats: ['html'] },
    });
    const status = await waitFor(
      async () => {
        const s = await api(stack, 'GET', `/crawl/${id}`);
        return s.status !== 'scraping' ? s : undefined;
      },
      'the crawl',
      30 * 60_000,
    );
    const seconds = (performance.now() - t0) / 1000;
    const usage = sampler();
    return {
      tool: `trawl crawl (engine ${engine}, ${scrapers} extractor-scrape)`,
      status: status.status,
      pages: status.documents,
      failed: status.completed - status.documents,
      concurrency: conc,
      seconds: +seconds.toFixed(2),
      pagesPerSecond: +(status.documents / seconds).toFixed(2),
      ...usage,
    };
  } finally {
    await stack.stop();
  }
}

async function runPeer(peerDir, base, crawler, conc) {
  const storage = mkdtempSync(join(tmpdir(), 'bench-crawl-crawlee-'));
  const peer = start(
    process.execPath,
    [
      join(peerDir, 'peer-crawlee-crawl.mjs'),
      '--base',
      base,
      '--pages',
      String(pages),
      '--concurrency',
      String(conc),
      '--crawler',
      crawler,
    ],
    {
      cwd: peerDir,
      env: { ...process.env, CRAWLEE_LOG_LEVEL: 'WARNING', CHROMIUM_PATH: chromium, CRAWLEE_STORAGE_DIR: storage },
    },
  );
  const sampler = sampleTree(() => [peer.child.pid]);
  const code = await peer.exited;
  const usage = sampler();
  rmSync(storage, { recursive: true, force: true });
  const line = peer
    .output()
    .split('\n')
    .find((l) => l.startsWith('{"tool"'));
  if (code !== 0 || !line) throw new Error(`peer failed (exit ${code}):\n${peer.output().slice(-3000)}`);
  return { ...JSON.parse(line), ...usage };
}

async function main() {
  build();
  const peerDir = installPeer();
  const site = start(process.execPath, [join(shared, 'bench', 'site.mjs'), '--port', '0']);
  const { port } = await waitFor(async () => {
    const line = site.output().split('\n')[0];
    return line.startsWith('{') ? JSON.parse(line) : undefined;
  }, 'site.mjs');
  const base = `http://127.0.0.1:${port}`;
  const machine = {
    cpus: cpus().length,
    cpu: cpus()[0]?.model,
    memGB: +(totalmem() / 2 ** 30).toFixed(1),
    node: process.version,
  };
  const out = {};
  const run = async (name, fn) => {
    const r = await fn();
    console.log(JSON.stringify({ run: name, ...r }));
    out[name] = r;
  };
  await run('http', () => runOurs(base, { engine: 'http', scrapers: 1, conc: concurrency }));
  await run('cheerio', () => runPeer(peerDir, base, 'cheerio', concurrency));
  await run('browser', () => runOurs(base, { engine: 'browser', scrapers: 1, conc: concurrency }));
  await run('playwright', () => runPeer(peerDir, base, 'playwright', concurrency));
  await run('browser-1-replica', () => runOurs(base, { engine: 'browser', scrapers: 1, conc: replicaConcurrency }));
  await run('browser-2-replicas', () => runOurs(base, { engine: 'browser', scrapers: 2, conc: replicaConcurrency }));
  const ratio = (a, b) => +(a.pagesPerSecond / b.pagesPerSecond).toFixed(2);
  console.log(
    JSON.stringify({
      summary: 'crawl',
      date: new Date().toISOString(),
      machine,
      pages,
      concurrency,
      httpVsCheerio: ratio(out.http, out.cheerio),
      browserVsPlaywright: ratio(out.browser, out.playwright),
      twoReplicasVsOne: ratio(out['browser-2-replicas'], out['browser-1-replica']),
    }),
  );
}

try {
  await main();
} finally {
  for (const p of started.reverse()) await stop(p);
}
