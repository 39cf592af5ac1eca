#!/usr/bin/env node
// Scrape benchmark: our extractor-scrape service (built, started as its own process, driven over NATS exactly as
// the gateway drives it) against the peer, Crawlee's PlaywrightCrawler (../shared/bench/peer-crawlee.mjs), in ONE
// run: same 200 pages of ../shared/bench/site.mjs, same Chromium, concurrency 4, formats ["html"]. Prints pages/s of
// both, the ratio, and the peak RSS of each side's process tree (Chromium included; ours includes nats-server),
// sampled from /proc every 50 ms. Rounds alternate (ours, peer, ours, peer ...) so both see the same machine load.
//
// Every request carries one tenant (`--tenant`, default `bench-caller`), as one caller's batch would through the
// gateway or task-service (ADR 0017: the tab is then kept between its pages); `--no-tenant` sends none (the tab is
// emptied after every page, as for a request whose tenant is unknown).
//
// Usage: node bench/scrape/run.mjs [--pages 200] [--concurrency 4] [--rounds 1] [--no-build] [--ours-only]
//        [--tenant <id> | --no-tenant]
// Env: TRAWL_SHARED_DIR (default ../shared), CHROMIUM_PATH (default /usr/bin/chromium), SKIP_BUILD=1.
//      BENCH_SERVICE_NODE_ARGS: Node flags for extractor-scrape (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof").
import { execFileSync, spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect } from '@nats-io/transport-node';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const argv = process.argv.slice(2);
const arg = (name, def) => (argv.includes(`--${name}`) ? argv[argv.indexOf(`--${name}`) + 1] : def);
const pages = Number(arg('pages', 200));
const concurrency = Number(arg('concurrency', 4));
const rounds = Number(arg('rounds', 1));
const oursOnly = argv.includes('--ours-only'); // tuning runs only; a comparison needs both sides
const tenant = argv.includes('--no-tenant') ? undefined : arg('tenant', 'bench-caller');
const skipBuild = argv.includes('--no-build') || process.env.SKIP_BUILD === '1';
const shared = resolve(process.env.TRAWL_SHARED_DIR ?? join(root, '..', 'shared'));
const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const log = (...m) => console.error('[bench:scrape]', ...m);
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
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const proc = { child, output: () => out, exited: new Promise((r) => child.once('exit', r)) };
  started.push(proc);
  return proc;
}

async function stop(proc) {
  if (proc.child.exitCode !== null || proc.child.signalCode !== null) return;
  proc.child.kill('SIGTERM');
  const t = setTimeout(() => proc.child.kill('SIGKILL'), 10_000);
  await proc.exited;
  clearTimeout(t);
}

async function waitFor(check, what, ms = 30_000) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await check().catch(() => undefined);
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

// ---- memory and CPU of a process tree, from /proc
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

/** RSS (sum of resident sets, shared pages counted in every process) and PSS (shared pages split) of the tree. */
function treeMemory(rootPids) {
  let rss = 0;
  let pss = 0;
  for (const pid of treePids(rootPids)) {
    rss += Number(read(`/proc/${pid}/statm`).split(' ')[1] ?? 0) * 4096;
    pss += Number(/^Pss:\s+(\d+) kB/m.exec(read(`/proc/${pid}/smaps_rollup`))?.[1] ?? 0) * 1024;
  }
  return { rss, pss };
}

/** CPU ticks (user + system) of every process in the tree now, by pid, with the process's kind. */
function treeCpu(rootPids, into) {
  for (const pid of treePids(rootPids)) {
    const stat = read(`/proc/${pid}/stat`);
    if (!stat) continue;
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const prev = into.get(pid);
    into.set(pid, {
      kind: /chrom/i.test(name) ? 'chromium' : name,
      ticks: Math.max(prev?.ticks ?? 0, Number(f[11]) + Number(f[12])),
      first: prev?.first ?? Number(f[11]) + Number(f[12]),
    });
  }
}

/**
 * Samples the tree every 50 ms; the returned function stops and gives peak RSS (shared pages counted in every
 * process), peak PSS (shared pages split) and the CPU seconds each kind of process used while sampling (processes
 * seen at the first sample count from there; later ones from their start).
 */
function sampleTree(rootPids) {
  let rss = 0;
  let pss = 0;
  const cpu = new Map();
  treeCpu(rootPids(), cpu);
  const initial = new Set(cpu.keys());
  const tick = () => {
    const m = treeMemory(rootPids());
    rss = Math.max(rss, m.rss);
    pss = Math.max(pss, m.pss);
    treeCpu(rootPids(), cpu);
  };
  const timer = setInterval(tick, 50);
  return () => {
    clearInterval(timer);
    tick();
    const cpuSeconds = {};
    for (const [pid, c] of cpu) {
      const used = (c.ticks - (initial.has(pid) ? c.first : 0)) / 100;
      cpuSeconds[c.kind] = +((cpuSeconds[c.kind] ?? 0) + used).toFixed(1);
    }
    return { peakRssMB: Math.round(rss / 2 ** 20), peakPssMB: Math.round(pss / 2 ** 20), cpuSeconds };
  };
}

// ---- preparation: build, peer install (cached under tmp/), site, nats
function build() {
  if (skipBuild && existsSync(join(root, 'dist/apps/extractor-scrape/src/main.js'))) return;
  // The workspace build (one tsc over every project): an app's own tsconfig misses the libs' module declarations.
  log('building');
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
}

function installPeer() {
  const dir = join(root, 'tmp', 'bench-peer');
  const pkg = readFileSync(join(shared, 'bench', 'package.json'));
  const stamp = createHash('sha256').update(pkg).digest('hex');
  mkdirSync(dir, { recursive: true });
  for (const f of readdirSync(join(shared, 'bench'))) {
    if (f.endsWith('.mjs') || f === 'package.json') cpSync(join(shared, 'bench', f), join(dir, f));
  }
  const stampFile = join(dir, '.installed');
  if (!existsSync(stampFile) || readFileSync(stampFile, 'utf8') !== stamp || !existsSync(join(dir, 'node_modules'))) {
    log('installing the peer (Crawlee) in', dir);
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir, stdio: 'inherit' });
    writeFileSync(stampFile, stamp);
  }
  return dir;
}

// ---- our side: extractor-scrape over NATS
async function runOurs(base, natsUrl, natsPid) {
  const nodeArgs = process.env.BENCH_SERVICE_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const service = start(process.execPath, [...nodeArgs, join(root, 'dist/apps/extractor-scrape/src/main.js')], {
    cwd: root,
    env: {
      ...process.env,
      NATS_URL: natsUrl,
      SSRF_ALLOW_HOSTS: '127.0.0.1',
      CHROMIUM_PATH: chromium,
      METRICS_PORT: '0',
      LOG_LEVEL: 'warn',
      OTEL_SDK_DISABLED: 'true',
      INSTANCE_ID: 'bench',
    },
  });
  const nc = await connect({ servers: natsUrl, name: 'bench-scrape' });
  const enc = new TextEncoder();
  const dec = new TextDecoder();
  const request = async (data, timeout = 30_000) => {
    const msg = await nc.request(
      'scrape.page.v1',
      enc.encode(JSON.stringify({ pattern: 'scrape.page.v1', data, id: randomUUID() })),
      { timeout },
    );
    return JSON.parse(dec.decode(msg.data));
  };
  try {
    const t0 = performance.now();
    // Ready = answering on NATS (an invalid payload gets VALIDATION_FAILED; no page is scraped before the run).
    await waitFor(
      async () => (await request({}, 1000)).err?.code === 'VALIDATION_FAILED',
      'extractor-scrape on NATS',
      60_000,
    );
    const startupSeconds = (performance.now() - t0) / 1000;
    const sampler = sampleTree(() => [service.child.pid, natsPid]);
    let next = 0;
    let failed = 0;
    let htmlBytes = 0;
    const errors = {};
    const t1 = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < pages) {
          const i = next++;
          const reply = await request({
            url: `${base}/p/${i}`,
            formats: ['html'],
            engine: 'browser',
            timeout: 30_000,
            ...(tenant !== undefined ? { tenant } : {}),
          }).catch((e) => ({ err: { code: e.message } }));
          if (reply.err) {
            failed++;
            errors[reply.err.code] = (errors[reply.err.code] ?? 0) + 1;
          } else htmlBytes += Buffer.from(reply.response.html, 'base64').length;
        }
      }),
    );
    const seconds = (performance.now() - t1) / 1000;
    const usage = sampler();
    return {
      tool: 'trawl extractor-scrape (own process, over NATS)',
      pages,
      concurrency,
      seconds: +seconds.toFixed(2),
      pagesPerSecond: +(pages / seconds).toFixed(2),
      failed,
      errors,
      htmlBytes,
      startupSeconds: +startupSeconds.toFixed(2),
      ...usage,
    };
  } finally {
    await nc.close();
    await stop(service);
  }
}

// ---- the peer: Crawlee
async function runPeer(peerDir, base) {
  const peer = start(
    process.execPath,
    [join(peerDir, 'peer-crawlee.mjs'), '--base', base, '--pages', String(pages), '--concurrency', String(concurrency)],
    {
      cwd: peerDir,
      env: {
        ...process.env,
        CRAWLEE_LOG_LEVEL: 'WARNING',
        CHROMIUM_PATH: chromium,
        CRAWLEE_STORAGE_DIR: join(peerDir, 'storage'),
      },
    },
  );
  const sampler = sampleTree(() => [peer.child.pid]);
  const code = await peer.exited;
  const usage = sampler();
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
  const { port: sitePort } = await waitFor(async () => {
    const line = site.output().split('\n')[0];
    return line.startsWith('{') ? JSON.parse(line) : undefined;
  }, 'site.mjs');
  const base = `http://127.0.0.1:${sitePort}`;
  const natsPort = await freePort();
  const nats = start('nats-server', ['-a', '127.0.0.1', '-p', String(natsPort)]);
  const natsUrl = `nats://127.0.0.1:${natsPort}`;
  await waitFor(async () => nats.output().includes('Server is ready'), 'nats-server');

  const machine = {
    cpus: cpus().length,
    cpu: cpus()[0]?.model,
    memGB: +(totalmem() / 2 ** 30).toFixed(1),
    node: process.version,
    chromium,
  };
  const results = [];
  for (let r = 1; r <= rounds; r++) {
    const ours = await runOurs(base, natsUrl, nats.child.pid);
    console.log(JSON.stringify({ round: r, ...ours }));
    if (oursOnly) continue;
    const peer = await runPeer(peerDir, base);
    console.log(JSON.stringify({ round: r, ...peer }));
    results.push({ ours, peer });
  }
  if (oursOnly) return;
  const sum = (f) => results.reduce((n, x) => n + f(x), 0) / results.length;
  const oursPps = sum((x) => x.ours.pagesPerSecond);
  const peerPps = sum((x) => x.peer.pagesPerSecond);
  console.log(
    JSON.stringify({
      summary: 'scrape',
      date: new Date().toISOString(),
      machine,
      pages,
      concurrency,
      rounds,
      oursPagesPerSecond: +oursPps.toFixed(2),
      crawleePagesPerSecond: +peerPps.toFixed(2),
      ratio: +(oursPps / peerPps).toFixed(2),
      oursPeakRssMB: Math.max(...results.map((x) => x.ours.peakRssMB)),
      crawleePeakRssMB: Math.max(...results.map((x) => x.peer.peakRssMB)),
      oursPeakPssMB: Math.max(...results.map((x) => x.ours.peakPssMB)),
      crawleePeakPssMB: Math.max(...results.map((x) => x.peer.peakPssMB)),
      oursFailed: results.reduce((n, x) => n + x.ours.failed, 0),
      crawleeFailed: results.reduce((n, x) => n + x.peer.failed, 0),
    }),
  );
}

try {
  await main();
} finally {
  for (const p of started.reverse()) await stop(p);
}
