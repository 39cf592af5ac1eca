#!/usr/bin/env node
// What one URL task costs, per step (issue 24 item 1). The built gateway, task-service and webhook-dispatcher run on
// their own Redis and NATS (JetStream) with an instant stand-in for extractor-scrape (its own process), and a
// receiver verifies every signed webhook. After a warm-up batch, two measured batches of N URLs:
//  1. counts: `INFO commandstats` and `INFO stats` deltas (the idle rate measured before, subtracted), and the CPU
//     time of every process (/proc/<pid>/stat), from the submission to the last webhook;
//  2. steps: the same batch again under `MONITOR`; every command is put in the step of the task that sent it (by the
//     BullMQ script or command and the connection's name; a script's own calls go with the script), with the bytes
//     its arguments carry.
// Then what stays in Redis per finished task (`MEMORY USAGE` of a sample of job hashes, of the event stream and the
// other keys, and `used_memory`). Prints one JSON line per part and, with --markdown, tables for docs/scaling.md.
//
//   node bench/tasks/cost.mjs [--urls 2000] [--concurrency 16] [--dist dist] [--markdown] [--profile <dir>]
//        [--aof]   (Redis with an append-only file, as in production: its growth per task, what replicas receive too)
//        [--result-bytes 40000]   (the stand-in answers with a markdown this long: a real page's result size)
// Loopback only; stops every process it started.
import { createHash } from 'node:crypto';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { Webhook } from 'standardwebhooks';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const { values } = parseArgs({
  options: {
    urls: { type: 'string', default: '2000' },
    concurrency: { type: 'string', default: '16' },
    dist: { type: 'string', default: 'dist' },
    markdown: { type: 'boolean', default: false },
    profile: { type: 'string' },
    'result-bytes': { type: 'string', default: '0' },
    aof: { type: 'boolean', default: false },
  },
});
const N = Number(values.urls);
const concurrency = Number(values.concurrency);
const distDir = resolve(root, values.dist);
/** The stand-in's markdown is this long (0: `# noop`); a real page's is about 40 KB. */
const resultBytes = Number(values['result-bytes']);
const log = (...m) => console.error('[bench:cost]', ...m);
const SECRET = `whsec_${Buffer.from('bench-cost-signing-secret-0123456789').toString('base64')}`;
const API_KEY = 'bench-cost-key';
const started = [];
const CLK_TCK = 100;
/** With --profile <dir>: CPU profiles of task-service and webhook-dispatcher (the whole run) go there. */
const prof = (name) =>
  values.profile
    ? ['--cpu-prof', '--cpu-prof-dir', resolve(values.profile), '--cpu-prof-name', `${name}.cpuprofile`]
    : [];

const freePort = () =>
  new Promise((ok, ko) => {
    const s = createServer().once('error', ko);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => ok(port));
    });
  });

function start(name, cmd, args, opts = {}) {
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...opts });
  let out = '';
  const keep = (d) => {
    out += d;
    if (out.length > 100_000) out = out.slice(-50_000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const proc = { name, child, output: () => out, exited: new Promise((r) => child.once('exit', r)) };
  child.once('exit', (code, signal) => {
    if (!stopping) log(`${name} exited (${code ?? signal}):\n${out.slice(-3000)}`);
  });
  started.push(proc);
  return proc;
}

let stopping = false;
async function stopAll() {
  stopping = true;
  for (const proc of started.reverse()) {
    if (proc.child.exitCode !== null || proc.child.signalCode !== null) continue;
    proc.child.kill('SIGTERM');
    const t = setTimeout(() => proc.child.kill('SIGKILL'), 10_000);
    await proc.exited;
    clearTimeout(t);
  }
}

async function waitFor(check, what, ms = 30_000) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await check().catch(() => undefined);
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const tcpOpen = (port) =>
  new Promise((ok) => {
    const s = createServer();
    s.once('error', () => ok(true));
    s.listen(port, '127.0.0.1', () => s.close(() => ok(false)));
  });

/** CPU time (user + system) of a process so far, ms. */
function cpuMs(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1000) / CLK_TCK;
}
const selfCpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** `INFO <section>` as { key: value } (commandstats: { cmd: calls }). */
async function info(redis, section) {
  const text = await redis.info(section);
  const out = {};
  for (const line of text.split('\r\n')) {
    const i = line.indexOf(':');
    if (i < 0 || line.startsWith('#')) continue;
    const key = line.slice(0, i);
    const value = line.slice(i + 1);
    if (section === 'commandstats') out[key.replace('cmdstat_', '')] = Number(/calls=(\d+)/.exec(value)[1]);
    else out[key] = value;
  }
  return out;
}

/** BullMQ's scripts and Trawl's batched inserts by the SHA1 ioredis sends with EVALSHA. */
async function scriptNames() {
  const names = new Map();
  const require = createRequire(join(root, 'package.json'));
  const dir = join(dirname(require.resolve('bullmq/package.json')), 'dist/cjs/scripts');
  const { batchedScriptLua } = await import(join(distDir, 'libs/tasks/src/lib/task-insert-batches.builder.js'));
  // The completion that keeps a large result apart (issue 24), in builds that have it.
  const { finishKeepingResultLua } = await import(join(distDir, 'libs/tasks/src/lib/task-results.store.js')).catch(
    () => ({}),
  );
  const sha = (s) => createHash('sha1').update(s).digest('hex');
  for (const file of readdirSync(dir).filter((f) => /-\d+\.js$/.test(f))) {
    const mod = require(join(dir, file));
    for (const s of Object.values(mod)) {
      if (!s?.content) continue;
      names.set(sha(s.content), s.name);
      if (s.name === 'moveToFinished' && finishKeepingResultLua)
        names.set(sha(finishKeepingResultLua(s.content)), 'moveToFinished keeping the result');
      try {
        names.set(sha(batchedScriptLua(s.content)), `batched ${s.name}`);
      } catch {
        // a script that cannot be batched is never sent batched
      }
    }
  }
  return names;
}

/** The length in bytes of a MONITOR argument (quoted, with \\xNN, \\n ... escapes). */
function argBytes(quoted) {
  let n = 0;
  for (let i = 1; i < quoted.length - 1; i++) {
    if (quoted[i] === '\\') {
      i += quoted[i + 1] === 'x' ? 3 : 1;
    }
    n++;
  }
  return n;
}

/** Splits one MONITOR line: { client: 'addr' | 'lua', args: [quoted...] }. */
function parseMonitor(line) {
  const m = /^\d+\.\d+ \[\d+ ([^\]]+)\] (.*)$/.exec(line);
  if (!m) return undefined;
  const args = m[2].match(/"(?:[^"\\]|\\.)*"/g) ?? [];
  return { client: m[1], args };
}
const unq = (q) => q.slice(1, -1);

/** The step of a task a top-level command belongs to. */
function stepOf(cmd, script, clientName, firstKey) {
  if (script) {
    const s = script.replace(/^batched /, '').replace(/:.*$/, '');
    if (/^add(Prioritized|Standard|Delayed|Parent)Job/.test(s)) return 'submission: job inserts (batched script)';
    if (s === 'moveToActive') return 'take: moveToActive (after a blocking wait)';
    if (s === 'moveToFinished') return 'completion: moveToFinished (+ take of the next job)';
    if (s === 'moveToFinished keeping the result')
      return 'completion: moveToFinished writing the large result once (+ take of the next job)';
    if (s === 'extendLock' || s === 'extendLocks') return 'lock renewal';
    if (s === 'moveStalledJobsToWait') return 'stalled-job check (periodic)';
    if (s === 'getStateV2' || s === 'getState') return 'outcome: job state read';
    return `script ${s}`;
  }
  if (cmd === 'hexists') return 'extractor call: cancellation checks (before, after)';
  if (cmd === 'srem') return 'outcome: release from the outstanding set';
  if (cmd === 'zadd' && /published|outcomes/.test(firstKey)) return 'outcome: published mark';
  if (cmd === 'bzpopmin') return 'take: blocking wait on the marker';
  if (
    ['multi', 'exec', 'sadd', 'scard', 'evalsha', 'eval', 'script'].includes(cmd) &&
    clientName === 'trawl-task-queues'
  )
    return 'submission: admission, MULTI/EXEC, outstanding set';
  if (cmd === 'incr' || cmd === 'wait') return 'submission: replica ack';
  return `other: ${cmd} (${clientName || '?'})`;
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'trawl-bench-cost-'));
  try {
    const redisPort = await freePort();
    const redisProc = start('redis', 'redis-server', [
      '--port',
      String(redisPort),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      ...(values.aof
        ? ['--appendonly', 'yes', '--appendfsync', 'everysec', '--auto-aof-rewrite-percentage', '0']
        : ['--appendonly', 'no']),
      '--dir',
      dir,
    ]);
    await waitFor(() => tcpOpen(redisPort), 'redis');
    const natsPort = await freePort();
    writeFileSync(
      join(dir, 'nats.conf'),
      `listen: 127.0.0.1:${natsPort}\nmax_payload: 8MB\njetstream { store_dir: "${join(dir, 'js')}" }\n`,
    );
    const natsProc = start('nats', 'nats-server', ['-c', join(dir, 'nats.conf')]);
    await waitFor(() => tcpOpen(natsPort), 'nats');
    const redisUrl = `redis://127.0.0.1:${redisPort}`;
    const natsUrl = `nats://127.0.0.1:${natsPort}`;
    const redis = new Redis(redisUrl);

    // The webhook receiver: verifies every delivery, counts distinct webhook-ids of the batch under way.
    const { bootstrapKeyId, deriveWebhookSecret } = await import(join(distDir, 'libs/keys/src/index.js'));
    const wh = new Webhook(deriveWebhookSecret(SECRET, bootstrapKeyId(API_KEY)));
    let round = null;
    const receiver = createHttpServer((req, res) => {
      const chunks = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        let ok = true;
        try {
          wh.verify(body, req.headers);
        } catch {
          ok = false;
        }
        res.statusCode = 200;
        res.end();
        if (!round) return;
        if (!ok) round.bad++;
        const id = req.headers['webhook-id'];
        if (round.ids.has(id)) round.duplicates++;
        else {
          round.ids.add(id);
          if (JSON.parse(body).status !== 'completed') round.failed++;
          if (round.ids.size === round.n) round.done(performance.now());
        }
      });
    });
    await new Promise((r) => receiver.listen(0, '127.0.0.1', r));
    const webhook = `http://127.0.0.1:${receiver.address().port}/hook`;

    const common = {
      NATS_URL: natsUrl,
      LOG_LEVEL: 'warn',
      METRICS_PORT: '0',
      SSRF_ALLOW_HOSTS: '127.0.0.1',
      PATH: process.env.PATH,
    };
    const main = (name) => join(distDir, 'apps', name, 'src', 'main.js');
    // The instant extractor, its own process (its CPU apart from the receiver's).
    const standIn = start(
      'extractor stand-in',
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { connect } from '@nats-io/transport-node';
         const nc = await connect({ servers: ${JSON.stringify(natsUrl)}, name: 'bench-cost-stand-in' });
         const enc = new TextEncoder(), dec = new TextDecoder();
         const markdown = ${resultBytes} > 0 ? '# page\\n' + 'x'.repeat(${resultBytes}) : '# noop';
         nc.subscribe('scrape.page.v1', { queue: 'extractor-scrape', callback: (_e, m) => {
           const frame = JSON.parse(dec.decode(m.data));
           const url = frame.data.url;
           const response = { sourceURL: url, taskId: 'noop', edgeId: 'noop', status: 200, rawStatus: 200,
             markdown, metadata: { title: 'noop', url, engine: 'http', contentType: 'text/html' } };
           m.respond(enc.encode(JSON.stringify({ id: frame.id, response, isDisposed: true })));
         } });
         await nc.flush();
         console.log('ready');`,
      ],
      { cwd: root },
    );
    await waitFor(async () => standIn.output().includes('ready'), 'the stand-in');
    const taskService = start('task-service', process.execPath, [...prof('task-service'), main('task-service')], {
      env: {
        ...common,
        REDIS_URL: redisUrl,
        TASK_CONCURRENCY_SCRAPE: String(concurrency),
        TASK_SCRAPE_ENGINE: 'http',
        TASK_SCRAPE_FORMATS: 'markdown',
        TASK_SHUTDOWN_GRACE_MS: '1000',
      },
    });
    const dispatcher = start(
      'webhook-dispatcher',
      process.execPath,
      [...prof('webhook-dispatcher'), main('webhook-dispatcher')],
      {
        env: { ...common, WEBHOOK_SIGNING_SECRET: SECRET, WEBHOOK_CONCURRENCY: '64', SSRF_ALLOW_HOSTS: '127.0.0.1' },
      },
    );
    const gatewayPort = await freePort();
    const gateway = start('gateway', process.execPath, [main('gateway')], {
      env: { ...common, API_KEYS: API_KEY, PORT: String(gatewayPort), HOST: '127.0.0.1' },
    });
    const base = `http://127.0.0.1:${gatewayPort}/api/openapi/v1`;
    await waitFor(() => tcpOpen(gatewayPort), 'gateway');
    await waitFor(async () => {
      const r = await fetch(`${base}/extractTask/scrape_00000000-0000-4000-8000-000000000000`, {
        headers: { 'x-api-key': API_KEY },
      });
      return r.status === 404;
    }, 'task-service answering lookups');
    const procs = { redis: redisProc, nats: natsProc, 'task-service': taskService, 'webhook-dispatcher': dispatcher };
    Object.assign(procs, { gateway, 'extractor stand-in': standIn });

    let batchNo = 0;
    async function batch(n) {
      const urls = Array.from({ length: n }, (_, i) => `http://127.0.0.1:9/b${batchNo}/p/${i}`);
      batchNo++;
      let done;
      const finished = new Promise((r) => (done = r));
      round = { n, ids: new Set(), duplicates: 0, failed: 0, bad: 0, done };
      const t0 = performance.now();
      const res = await fetch(`${base}/extractTask/batch`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': API_KEY },
        body: JSON.stringify({ urls, webhook, type: 'scrape', timeout: 25000 }),
      });
      const body = await res.json();
      const t1 = performance.now();
      if (res.status !== 200 || body.data?.length !== n)
        throw new Error(`submission failed: ${res.status} ${JSON.stringify(body).slice(0, 500)}`);
      const tEnd = await Promise.race([
        finished,
        new Promise((_, ko) => setTimeout(() => ko(new Error(`only ${round.ids.size} of ${n} webhooks`)), 600_000)),
      ]);
      await new Promise((r) => setTimeout(r, 1000));
      const out = {
        urls: n,
        submitMs: Math.round(t1 - t0),
        totalMs: Math.round(tEnd - t0),
        tasksPerSecond: Number(((n * 1000) / (tEnd - t0)).toFixed(1)),
        webhooks: round.ids.size,
        duplicates: round.duplicates,
        failed: round.failed,
        badSignatures: round.bad,
        ids: body.data.map((t) => t.taskId ?? t.id),
      };
      round = null;
      return out;
    }

    log('warm-up');
    await batch(Math.min(500, N));

    // Idle: what Redis does per second with nothing to do (workers' blocking waits, stalled checks, watches).
    await redis.config('RESETSTAT');
    const idleT0 = performance.now();
    await new Promise((r) => setTimeout(r, 5000));
    const idleStats = await info(redis, 'commandstats');
    const idleSec = (performance.now() - idleT0) / 1000;
    delete idleStats.config;
    delete idleStats.info;

    // 1. Counts and CPU.
    log(`counts: ${N} URLs`);
    await redis.config('RESETSTAT');
    const stats0 = await info(redis, 'stats');
    const aof0 = Number((await info(redis, 'persistence')).aof_current_size ?? 0);
    const mem0 = Number((await info(redis, 'memory')).used_memory);
    const cpu0 = Object.fromEntries(Object.entries(procs).map(([k, p]) => [k, cpuMs(p.child.pid)]));
    const self0 = selfCpuMs();
    const t0 = performance.now();
    const counted = await batch(N);
    const elapsedSec = (performance.now() - t0) / 1000;
    const cmdstats = await info(redis, 'commandstats');
    const stats1 = await info(redis, 'stats');
    const aof1 = Number((await info(redis, 'persistence')).aof_current_size ?? 0);
    const cpu = Object.fromEntries(
      Object.entries(procs).map(([k, p]) => [k, Number(((cpuMs(p.child.pid) - cpu0[k]) / N).toFixed(3))]),
    );
    cpu['bench (webhook receiver)'] = Number(((selfCpuMs() - self0) / N).toFixed(3));
    const perTask = {};
    let total = 0;
    for (const [cmd, calls] of Object.entries(cmdstats)) {
      if (cmd === 'info' || cmd === 'config') continue;
      const net = calls - (idleStats[cmd] ?? 0) * (elapsedSec / idleSec);
      if (net / N < 0.005) continue;
      perTask[cmd] = Number((net / N).toFixed(2));
      total += net / N;
    }
    const counts = {
      part: 'counts',
      resultBytes,
      ...omitIds(counted),
      commandsPerTask: Number(total.toFixed(1)),
      idleCommandsPerSecond: Number((Object.values(idleStats).reduce((a, b) => a + b, 0) / idleSec).toFixed(1)),
      byCommand: Object.fromEntries(Object.entries(perTask).sort((a, b) => b[1] - a[1])),
      netInBytesPerTask: Math.round((Number(stats1.total_net_input_bytes) - Number(stats0.total_net_input_bytes)) / N),
      netOutBytesPerTask: Math.round(
        (Number(stats1.total_net_output_bytes) - Number(stats0.total_net_output_bytes)) / N,
      ),
      ...(values.aof ? { aofBytesPerTask: Math.round((aof1 - aof0) / N) } : {}),
      cpuMsPerTask: cpu,
      load: loadavg()
        .map((l) => l.toFixed(2))
        .join(' '),
    };
    console.log(JSON.stringify(counts));

    // Memory kept by the finished tasks of the batch.
    const mem1 = Number((await info(redis, 'memory')).used_memory);
    const sample = counted.ids.slice(0, 200);
    const prefix = (await redis.keys(`*${sample[0]}`))[0]?.slice(0, -sample[0].length);
    let jobBytes = 0;
    for (const id of sample) jobBytes += Number(await redis.memory('USAGE', `${prefix}${id}`, 'SAMPLES', '0'));
    const keyMem = {};
    for (const key of await redis.keys('*')) {
      if (sample.some((id) => key.endsWith(id))) continue;
      const type = await redis.type(key);
      if (type === 'hash' && /:[a-z]+_[0-9a-f-]{36}$/.test(key)) continue;
      const bytes = Number(await redis.memory('USAGE', key, 'SAMPLES', '0'));
      const len =
        type === 'stream'
          ? await redis.xlen(key)
          : type === 'zset'
            ? await redis.zcard(key)
            : type === 'set'
              ? await redis.scard(key)
              : type === 'list'
                ? await redis.llen(key)
                : undefined;
      keyMem[key] = { type, bytes, ...(len !== undefined ? { entries: len } : {}) };
    }
    const events = Object.entries(keyMem).find(([k, v]) => v.type === 'stream' && k.endsWith(':events'));
    const memory = {
      part: 'memory',
      jobHashBytes: Math.round(jobBytes / sample.length),
      usedMemoryDeltaPerTask: Math.round((mem1 - mem0) / N),
      eventStream: events
        ? { key: events[0], entries: events[1].entries, bytesPerEntry: Math.round(events[1].bytes / events[1].entries) }
        : null,
      otherKeys: Object.fromEntries(Object.entries(keyMem).filter(([, v]) => v.bytes > 1000)),
    };
    console.log(JSON.stringify(memory));

    // 2. Steps, under MONITOR.
    log(`steps: ${N} URLs under MONITOR`);
    const names = await scriptNames();
    const clientNames = async () => {
      const map = new Map();
      for (const line of (await redis.client('LIST')).split('\n')) {
        const addr = /addr=(\S+)/.exec(line)?.[1];
        if (addr) map.set(addr, /name=(\S*)/.exec(line)?.[1] ?? '');
      }
      return map;
    };
    const clients = await clientNames();
    const monitor = new Redis(redisUrl);
    const lines = [];
    await new Promise((ok, ko) => {
      monitor.once('error', ko);
      monitor.monitor((e, m) => {
        if (e) return ko(e);
        m.on('monitor', (time, args, source) => lines.push({ source, args }));
        ok();
      });
    });
    const stepped = await batch(N);
    await monitor.disconnect();
    for (const [k, v] of await clientNames()) clients.set(k, v);
    const steps = new Map();
    const add = (step, cmd, bytes, top) => {
      const s = steps.get(step) ?? { calls: 0, commands: {}, bytesIn: 0 };
      if (top) s.calls++;
      s.commands[cmd] = (s.commands[cmd] ?? 0) + 1;
      s.bytesIn += bytes;
      steps.set(step, s);
    };
    let current = 'other';
    for (const { source, args } of lines) {
      const cmd = String(args[0]).toLowerCase();
      if (source === 'lua') {
        add(current, cmd, 0, false);
        continue;
      }
      const bytes = args.reduce((n, a) => n + Buffer.byteLength(String(a)), 0);
      const script =
        cmd === 'evalsha' ? (names.get(String(args[1])) ?? `sha ${String(args[1]).slice(0, 8)}`) : undefined;
      const name = clients.get(source) ?? '';
      current = stepOf(cmd, script, name, String(args[1] ?? ''));
      add(current, script ? `${cmd} ${script.replace(/:.*$/, '')}` : cmd, bytes, true);
    }
    const stepsOut = [...steps]
      .map(([step, s]) => ({
        step,
        callsPerTask: Number((s.calls / N).toFixed(2)),
        commandsPerTask: Number((Object.values(s.commands).reduce((a, b) => a + b, 0) / N).toFixed(2)),
        bytesInPerTask: Math.round(s.bytesIn / N),
        commands: Object.fromEntries(
          Object.entries(s.commands)
            .map(([c, k]) => [c, Number((k / N).toFixed(2))])
            .filter(([, k]) => k >= 0.01)
            .sort((a, b) => b[1] - a[1]),
        ),
      }))
      .filter((s) => s.commandsPerTask >= 0.01)
      .sort((a, b) => b.commandsPerTask - a.commandsPerTask);
    console.log(JSON.stringify({ part: 'steps', ...omitIds(stepped), monitoredLines: lines.length, steps: stepsOut }));
    if (values.markdown) printMarkdown(counts, memory, stepsOut);
    await redis.quit();
    receiver.closeAllConnections();
    receiver.close();
  } finally {
    await stopAll();
    rmSync(dir, { recursive: true, force: true });
  }
}

function omitIds({ ids, ...rest }) {
  return rest;
}

function printMarkdown(counts, memory, steps) {
  const out = [];
  out.push("| step | calls / task | Redis commands / task (with a script's own) | bytes in / task | what |");
  out.push('|---|---|---|---|---|');
  for (const s of steps) {
    const what = Object.entries(s.commands)
      .slice(0, 8)
      .map(([c, k]) => `\`${c}\` ${k}`)
      .join(', ');
    out.push(`| ${s.step} | ${s.callsPerTask} | ${s.commandsPerTask} | ${s.bytesInPerTask} | ${what} |`);
  }
  out.push('');
  out.push(
    `Commands per task (commandstats, idle subtracted): ${counts.commandsPerTask}; network in / out per task: ` +
      `${counts.netInBytesPerTask} / ${counts.netOutBytesPerTask} bytes; job hash ${memory.jobHashBytes} bytes; ` +
      `used_memory per task ${memory.usedMemoryDeltaPerTask} bytes.`,
  );
  out.push('');
  out.push('| process | CPU ms / task |');
  out.push('|---|---|');
  for (const [k, v] of Object.entries(counts.cpuMsPerTask)) out.push(`| ${k} | ${v} |`);
  console.log(out.join('\n'));
}

main().then(
  () => process.exit(0),
  async (e) => {
    log(e);
    await stopAll();
    process.exit(1);
  },
);
