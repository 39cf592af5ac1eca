#!/usr/bin/env node
// Submission latency of a large POST /extractTask/batch (default 10,000 URLs): the built gateway and task-service
// (queue workers off, so nothing else runs) on their own Redis and NATS (max_payload 8 MB). With `--dist-b` a second,
// separate stack runs another build and the submissions alternate A, B, A, B ... so both see the same machine load.
// Redis is emptied before each submission. Prints one JSON line per stack, with
// the CPU each process used during a submission (median). Loopback only; stops what it started.
//
//   node bench/tasks/submit.mjs [--dist dist] [--dist-b <other build>] [--urls 10000] [--submissions 8]
//        [--profile <dir>]   (CPU profiles of each stack's gateway and task-service)
//        [--node-options-a='<flags>'] [--node-options-b='<flags>']   (NODE_OPTIONS of that stack's gateway and task-service)
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const { values } = parseArgs({
  options: {
    dist: { type: 'string', default: 'dist' },
    'dist-b': { type: 'string' },
    urls: { type: 'string', default: '10000' },
    submissions: { type: 'string', default: '8' },
    profile: { type: 'string' },
    'node-options-a': { type: 'string', default: '' },
    'node-options-b': { type: 'string', default: '' },
  },
});
const N = Number(values.urls);
const SUBMISSIONS = Number(values.submissions);
const API_KEY = 'bench-submit-key';
const dists = [resolve(root, values.dist), ...(values['dist-b'] ? [resolve(root, values['dist-b'])] : [])];
const procs = [];
const dirs = [];

const freePort = () =>
  new Promise((ok, ko) => {
    const s = createServer().once('error', ko);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => ok(port));
    });
  });
function start(cmd, args, env = {}) {
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH, ...env } });
  child.out = '';
  const keep = (d) => (child.out = (child.out + d).slice(-4000));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  procs.push(child);
  return child;
}
async function stopAll() {
  for (const p of procs.reverse()) {
    if (p.exitCode !== null || p.signalCode !== null) continue;
    const exited = new Promise((r) => p.once('exit', r));
    p.kill('SIGTERM');
    const t = setTimeout(() => p.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(t);
  }
}
async function waitFor(check, what, proc, ms = 30_000) {
  const end = Date.now() + ms;
  for (;;) {
    if (proc && proc.exitCode !== null) throw new Error(`${what}: process exited\n${proc.out}`);
    const v = await check().catch(() => undefined);
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
const tcpOpen = (port) =>
  new Promise((ok) => {
    const c = connect(port, '127.0.0.1', () => (c.destroy(), ok(true)));
    c.on('error', () => ok(false));
  });
/** utime + stime of a process, ms. */
const cpuMs = (pid) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
};
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function startStack(dist, label) {
  const dir = mkdtempSync(join(tmpdir(), 'trawl-bench-submit-'));
  dirs.push(dir);
  const redisPort = await freePort();
  const redisProc = start('redis-server', [
    '--port',
    String(redisPort),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
    '--dir',
    dir,
  ]);
  await waitFor(() => tcpOpen(redisPort), 'redis', redisProc);
  const redis = new Redis(redisPort, '127.0.0.1');
  const natsPort = await freePort();
  writeFileSync(
    join(dir, 'nats.conf'),
    `listen: 127.0.0.1:${natsPort}\nmax_payload: 8MB\njetstream { store_dir: "${join(dir, 'js')}" }\n`,
  );
  const natsProc = start('nats-server', ['-c', join(dir, 'nats.conf')]);
  const prof = (name) =>
    values.profile
      ? ['--cpu-prof', '--cpu-prof-dir', resolve(values.profile), '--cpu-prof-name', `${name}-${label}.cpuprofile`]
      : [];
  const nodeOptions = values[`node-options-${label}`];
  const common = {
    ...(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {}),
    NATS_URL: `nats://127.0.0.1:${natsPort}`,
    LOG_LEVEL: 'warn',
    SSRF_ALLOW_HOSTS: '127.0.0.1',
    METRICS_PORT: '0',
  };
  const taskService = start(process.execPath, [...prof('task-service'), join(dist, 'apps/task-service/src/main.js')], {
    ...common,
    REDIS_URL: `redis://127.0.0.1:${redisPort}`,
    TASK_WORKERS_ENABLED: 'false',
    TASK_SHUTDOWN_GRACE_MS: '1000',
  });
  const gatewayPort = await freePort();
  const gateway = start(process.execPath, [...prof('gateway'), join(dist, 'apps/gateway/src/main.js')], {
    ...common,
    API_KEYS: API_KEY,
    PORT: String(gatewayPort),
    HOST: '127.0.0.1',
  });
  const base = `http://127.0.0.1:${gatewayPort}/api/openapi/v1`;
  await waitFor(
    async () =>
      (
        await fetch(`${base}/extractTask/scrape_00000000-0000-4000-8000-000000000000`, {
          headers: { 'x-api-key': API_KEY },
        })
      ).status === 404,
    `${label}: task-service answering lookups`,
    taskService.exitCode === null ? gateway : taskService,
  );
  const cpu = { gateway: gateway.pid, taskService: taskService.pid, redis: redisProc.pid, nats: natsProc.pid };
  return { label, dist, base, redis, ms: [], cpu, cpuMs: Object.fromEntries(Object.keys(cpu).map((k) => [k, []])) };
}

try {
  const stacks = [];
  for (const [i, dist] of dists.entries()) stacks.push(await startStack(dist, 'ab'[i]));
  const urls = Array.from({ length: N }, (_, i) => `http://127.0.0.1:8/p/${i}?ref=bench`);
  const body = JSON.stringify({ urls, webhook: 'http://127.0.0.1:9/hook', type: 'scrape', timeout: 25000 });
  const submit = async (s) => {
    await s.redis.flushall();
    const c0 = Object.fromEntries(Object.entries(s.cpu).map(([k, pid]) => [k, cpuMs(pid)]));
    const t0 = performance.now();
    const res = await fetch(`${s.base}/extractTask/batch`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': API_KEY },
      body,
    });
    const reply = await res.json();
    const ms = performance.now() - t0;
    for (const [k, pid] of Object.entries(s.cpu)) s.cpuMs[k].push(cpuMs(pid) - c0[k]);
    if (res.status !== 200 || reply.data?.length !== N)
      throw new Error(`submission failed: ${res.status} ${JSON.stringify(reply).slice(0, 500)}`);
    return ms;
  };
  const first = [];
  for (const s of stacks) {
    first.push(Math.round(await submit(s)));
    for (const k in s.cpuMs) s.cpuMs[k].length = 0;
  }
  const load = [loadavg()[0]];
  for (let r = 0; r < SUBMISSIONS; r++) for (const s of stacks) s.ms.push(await submit(s));
  load.push(loadavg()[0]);
  for (const [i, s] of stacks.entries()) {
    console.log(
      JSON.stringify({
        bench: 'tasks-submit',
        stack: s.label,
        dist: s.dist.replace(`${root}/`, ''),
        ...(values[`node-options-${s.label}`] ? { nodeOptions: values[`node-options-${s.label}`] } : {}),
        urls: N,
        firstMs: first[i],
        medianMs: Math.round(median(s.ms)),
        minMs: Math.round(Math.min(...s.ms)),
        maxMs: Math.round(Math.max(...s.ms)),
        submissions: s.ms.length,
        // CPU used during a submission, median per process, ms (10 ms resolution).
        cpuMs: Object.fromEntries(Object.entries(s.cpuMs).map(([k, v]) => [k, median(v)])),
        load: load.map((l) => l.toFixed(2)).join('→'),
      }),
    );
    await s.redis.quit();
  }
} finally {
  await stopAll();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}
