#!/usr/bin/env node
// Capacity bench (issue 15, item 7; the model is docs/scaling.md). What one task costs in each part of a running
// stack, measured as deltas around a batch of N tasks:
//  - Redis: INFO commandstats (calls and Redis's own usec per command), INFO stats (commands processed, network bytes
//    in and out), redis-server CPU time, and the memory a finished job keeps (MEMORY USAGE of a sample of the batch's
//    job hashes; BullMQ keeps the last 300,000 completed jobs of a queue) and the queue's event stream's entries;
//  - NATS: /varz (messages and bytes in and out), /jsz (JetStream API calls, stored messages and bytes),
//    nats-server CPU time;
//  - CPU time of each service process (gateway, task-service, extractor-scrape, webhook-dispatcher), from /proc.
// Rounds: `url` (POST /extractTask/batch, type scrape, the real extractor-scrape on the plain-HTTP engine against
// ../shared/bench/site.mjs) and `url-noop` (extractor-scrape stopped, an instant stand-in answers scrape.page.v1:
// the task machinery alone). An idle window before the rounds gives the background rate (BullMQ's blocking waits,
// stalled checks, JetStream heartbeats), reported per second apart from the batch figures.
// Then what one core of each server does on loopback: redis-benchmark (SET, LPUSH, RPOP, ZADD, HSET; one
// connection per client, no pipelining) with redis-server's CPU time, and JetStream acknowledged publishes of an
// outcome-sized message to a file-stored stream with the servers' CPU time: R1 on the one server, R3 on a 3-node
// cluster started for it.
// Prints one JSON line per round and probe and a summary line (machine, date, load average). Loopback only; every
// process it starts is stopped at the end.
//
// With --nats-nodes 3 the stack runs on a 3-node NATS cluster with the outcome streams at 3 replicas, and the NATS
// figures are summed over the nodes.
//
// Usage: node bench/capacity/run.mjs [--tasks 2000] [--concurrency 16] [--idle 10] [--nats-nodes 1] [--no-build]
// Env: TRAWL_SHARED_DIR (default ../shared), SKIP_BUILD=1.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { Redis } from 'ioredis';
import { Webhook } from 'standardwebhooks';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const argv = process.argv.slice(2);
const arg = (name, def) => (argv.includes(`--${name}`) ? argv[argv.indexOf(`--${name}`) + 1] : def);
const N = Number(arg('tasks', 2000));
const concurrency = Number(arg('concurrency', 16));
const IDLE_S = Number(arg('idle', 10));
// 1: one nats-server (R1 streams). 3 (or more): a NATS cluster, the outcome and dead-letter streams created with 3
// replicas before the services start (they keep an existing stream), NATS_URL listing every node.
const NATS_NODES = Number(arg('nats-nodes', 1));
// Queries of the search batch (POST /extractTask/batch/search against the upstream simulator); 0 skips it.
const SEARCH_QUERIES = Number(arg('search', 500));
const SEARCH_BATCH = 50;
const skipBuild = argv.includes('--no-build') || process.env.SKIP_BUILD === '1';
const shared = resolve(process.env.TRAWL_SHARED_DIR ?? join(root, '..', 'shared'));
const distDir = join(root, 'dist');
const log = (...m) => console.error(`[bench:capacity ${new Date().toISOString().slice(11, 19)}]`, ...m);
const SECRET = `whsec_${Buffer.from('bench-capacity-signing-secret-0123').toString('base64')}`;
const API_KEY = 'bench-capacity-key';
const CLK_TCK = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
const started = [];
let stopping = false;

function freePort() {
  return new Promise((ok, ko) => {
    const s = createServer().once('error', ko);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => ok(port));
    });
  });
}

const tcpOpen = (port) =>
  new Promise((ok) => {
    const s = createServer();
    s.once('error', () => ok(true));
    s.listen(port, '127.0.0.1', () => s.close(() => ok(false)));
  });

async function waitFor(check, what, ms = 60_000) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await check().catch(() => undefined);
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

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
    if (!stopping && !proc.expectedExit) log(`${name} exited (${code ?? signal}):\n${out.slice(-3000)}`);
  });
  started.push(proc);
  return proc;
}

async function stopAll() {
  stopping = true;
  for (const proc of [...started].reverse()) {
    if (proc.child.exitCode !== null || proc.child.signalCode !== null) continue;
    proc.child.kill('SIGTERM');
    const t = setTimeout(() => proc.child.kill('SIGKILL'), 10_000);
    await proc.exited;
    clearTimeout(t);
  }
}

/** CPU seconds (user + system) a process has used so far, from /proc/<pid>/stat. */
function cpuSeconds(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLK_TCK; // utime, stime (fields 14 and 15 of the line)
  } catch {
    return NaN;
  }
}

function parseInfo(text) {
  const out = {};
  for (const line of text.split('\r\n')) {
    const i = line.indexOf(':');
    if (i > 0 && !line.startsWith('#')) out[line.slice(0, i)] = line.slice(i + 1);
  }
  return out;
}

const round3 = (x) => Number(x.toFixed(3));
const perTask = (x, n) => round3(x / n);

/**
 * Acknowledged JetStream publishes of `size`-byte messages to a file-stored stream of `replicas` replicas, 256 in
 * flight: publishes per second, and per second of the servers' CPU (summed over `pids`).
 */
async function jetstreamProbe(nc, pids, replicas, size) {
  // A fresh cluster answers the JetStream API only once it has a meta leader: retry until it does.
  const jsm = await waitFor(() => jetstreamManager(nc), 'the JetStream API');
  const name = `CAPACITY_PROBE_R${replicas}`;
  // A fresh cluster may still be electing its meta leader: retry the creation for a while.
  await waitFor(
    () => jsm.streams.add({ name, subjects: [`capacity.probe.r${replicas}`], storage: 'file', num_replicas: replicas }),
    `stream ${name}`,
  );
  const js = jetstream(nc);
  const payload = new Uint8Array(size).fill(120);
  const M = 20_000;
  const cpu = () => pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
  const n0 = cpu();
  const c0 = process.cpuUsage();
  const p0 = performance.now();
  const inflight = new Set();
  for (let sent = 0; sent < M; sent++) {
    const p = js.publish(`capacity.probe.r${replicas}`, payload).finally(() => inflight.delete(p));
    inflight.add(p);
    if (inflight.size >= 256) await Promise.race(inflight);
  }
  await Promise.all(inflight);
  const seconds = (performance.now() - p0) / 1000;
  const serverCpu = cpu() - n0;
  const c1 = process.cpuUsage(c0);
  await jsm.streams.delete(name);
  return {
    probe: 'jetstream-publish',
    replicas,
    servers: pids.length,
    messages: M,
    bytes: size,
    inFlight: 256,
    publishesPerSecond: Math.round(M / seconds),
    publishesPerServerCpuSecond: Math.round(M / serverCpu),
    serversCpuShare: round3(serverCpu / seconds),
    clientCpuShare: round3((c1.user + c1.system) / 1e6 / seconds),
    load: loadavg()
      .map((x) => x.toFixed(2))
      .join(' '),
  };
}

/** A NATS cluster of `n` JetStream servers on loopback (routes between them), each with its own store. */
async function startNatsCluster(dir, n) {
  const ports = [];
  for (let i = 0; i < n; i++) ports.push({ client: await freePort(), route: await freePort(), http: await freePort() });
  const pids = [];
  for (let i = 0; i < n; i++) {
    const routes = ports.filter((_p, j) => j !== i).map((p) => `nats://127.0.0.1:${p.route}`);
    const conf = join(dir, `nats-c${i}.conf`);
    writeFileSync(
      conf,
      `server_name: c${i}\nlisten: 127.0.0.1:${ports[i].client}\nhttp: 127.0.0.1:${ports[i].http}\n` +
        `max_payload: 8MB\n` +
        `jetstream { store_dir: "${join(dir, `js-c${i}`)}" }\n` +
        `cluster { name: capacity, listen: 127.0.0.1:${ports[i].route}, routes: [${routes.join(', ')}] }\n`,
    );
    pids.push(start(`nats-c${i}`, 'nats-server', ['-c', conf]).child.pid);
  }
  for (const p of ports) await waitFor(() => tcpOpen(p.client), 'nats cluster node');
  return { pids, urls: ports.map((p) => `nats://127.0.0.1:${p.client}`), monitorPorts: ports.map((p) => p.http) };
}

async function main() {
  if (!skipBuild) {
    log('building');
    execFileSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
  }
  const dir = mkdtempSync(join(tmpdir(), 'trawl-bench-capacity-'));
  try {
    // Redis as production runs it for BullMQ (AOF, fsync every second, noeviction) and NATS with JetStream (file
    // store) and its monitoring port.
    const redisPort = await freePort();
    const redisProc = start('redis', 'redis-server', [
      '--port',
      String(redisPort),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'yes',
      '--appendfsync',
      'everysec',
      '--maxmemory-policy',
      'noeviction',
      '--dir',
      dir,
    ]);
    await waitFor(() => tcpOpen(redisPort), 'redis');
    let nats;
    if (NATS_NODES > 1) {
      nats = await startNatsCluster(dir, NATS_NODES);
      // The streams as libs/messaging creates them, but with 3 replicas (the services leave an existing stream as it
      // is); the dispatcher's durable consumer takes the stream's replica count.
      const { STREAMS } = await import(join(distDir, 'libs/contracts/src/index.js'));
      const admin = await connect({ servers: nats.urls, name: 'bench-capacity-admin' });
      const jsm = await waitFor(() => jetstreamManager(admin), 'the JetStream API');
      for (const def of [STREAMS.taskOutcomes, STREAMS.webhookDeadLetters]) {
        const config = { name: def.name, subjects: [...def.subjects], storage: 'file', num_replicas: 3 };
        await waitFor(
          () => jsm.streams.add({ ...config, duplicate_window: 3_600_000_000_000, max_age: 604_800_000_000_000 }),
          `stream ${def.name}`,
        );
      }
      await admin.close();
    } else {
      const natsPort = await freePort();
      const monitorPort = await freePort();
      writeFileSync(
        join(dir, 'nats.conf'),
        `listen: 127.0.0.1:${natsPort}\nhttp: 127.0.0.1:${monitorPort}\nmax_payload: 8MB\n` +
          `jetstream { store_dir: "${join(dir, 'js')}" }\n`,
      );
      const natsProc = start('nats', 'nats-server', ['-c', join(dir, 'nats.conf')]);
      await waitFor(() => tcpOpen(natsPort), 'nats');
      nats = { pids: [natsProc.child.pid], urls: [`nats://127.0.0.1:${natsPort}`], monitorPorts: [monitorPort] };
    }
    const redisUrl = `redis://127.0.0.1:${redisPort}`;
    const natsUrl = nats.urls.join(',');
    // Monitoring figures summed over every NATS node (a replicated stream counts once per replica).
    const monitor = async (path) => {
      const all = await Promise.all(
        nats.monitorPorts.map(async (port) => (await fetch(`http://127.0.0.1:${port}${path}`)).json()),
      );
      const sum = (f) => all.reduce((x, j) => x + (f(j) ?? 0), 0);
      return {
        in_msgs: sum((j) => j.in_msgs),
        out_msgs: sum((j) => j.out_msgs),
        in_bytes: sum((j) => j.in_bytes),
        out_bytes: sum((j) => j.out_bytes),
        api: { total: sum((j) => j.api?.total) },
        messages: sum((j) => j.messages),
        bytes: sum((j) => j.bytes),
      };
    };

    const site = start('site', process.execPath, [join(shared, 'bench', 'site.mjs'), '--port', '0']);
    const sitePort = await waitFor(async () => JSON.parse(site.output().split('\n')[0] || 'null')?.port, 'site.mjs');
    const siteUrl = `http://127.0.0.1:${sitePort}`;

    // Webhook receiver: verifies every delivery, counts distinct webhook-ids per round.
    // Each key signs with its own secret, derived from the master (docs/webhooks.md).
    const { bootstrapKeyId, deriveWebhookSecret } = await import(join(distDir, 'libs/keys/src/index.js'));
    const wh = new Webhook(deriveWebhookSecret(SECRET, bootstrapKeyId(API_KEY)));
    let round = null;
    const receiver = createHttpServer((req, res) => {
      const chunks = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        let good = true;
        try {
          wh.verify(body, req.headers);
        } catch {
          good = false;
        }
        res.statusCode = 200;
        res.end();
        if (!round) return;
        if (!good) round.badSignatures++;
        const id = req.headers['webhook-id'];
        if (round.ids.has(id)) round.duplicates++;
        else {
          round.ids.add(id);
          if (JSON.parse(body).status !== 'completed') round.failed++;
          if (round.ids.size === round.n) round.done();
        }
      });
    });
    await new Promise((r) => receiver.listen(0, '127.0.0.1', r));
    const webhook = `http://127.0.0.1:${receiver.address().port}/hook`;

    // The services as production runs them: gateway, task-service and dispatcher on Redis (keys, limits, queues,
    // key store), everyone on NATS.
    const common = {
      NATS_URL: natsUrl,
      ...(NATS_NODES > 1 ? { NATS_STREAM_REPLICAS: '3' } : {}),
      LOG_LEVEL: 'warn',
      SSRF_ALLOW_HOSTS: '127.0.0.1',
      METRICS_PORT: '0',
      PATH: process.env.PATH,
    };
    const mainOf = (name) => join(distDir, 'apps', name, 'src', 'main.js');
    const services = {};
    services['extractor-scrape'] = start('extractor-scrape', process.execPath, [mainOf('extractor-scrape')], {
      env: { ...common, SCRAPE_DEFAULT_ENGINE: 'http', INSTANCE_ID: 'capacity-scrape' },
    });
    services['task-service'] = start('task-service', process.execPath, [mainOf('task-service')], {
      env: {
        ...common,
        REDIS_URL: redisUrl,
        TASK_CONCURRENCY_SCRAPE: String(concurrency),
        TASK_SCRAPE_ENGINE: 'http',
        TASK_SCRAPE_FORMATS: 'markdown',
        TASK_SHUTDOWN_GRACE_MS: '1000',
      },
    });
    services['webhook-dispatcher'] = start('webhook-dispatcher', process.execPath, [mainOf('webhook-dispatcher')], {
      env: { ...common, REDIS_URL: redisUrl, WEBHOOK_SIGNING_SECRET: SECRET, WEBHOOK_CONCURRENCY: '64' },
    });
    if (SEARCH_QUERIES > 0) {
      // Searches against the upstream simulator (classic mode: plain HTTP answers), one page of 10 results each.
      const simulatorPort = await freePort();
      start('simulator', process.execPath, [join(distDir, 'tools/upstream-simulator/src/main.js')], {
        env: { PATH: process.env.PATH, SIMULATOR_PORT: String(simulatorPort) },
      });
      await waitFor(() => tcpOpen(simulatorPort), 'upstream simulator');
      services['extractor-search'] = start('extractor-search', process.execPath, [mainOf('extractor-search')], {
        env: { ...common, SEARCH_BASE_URL: `http://127.0.0.1:${simulatorPort}`, SEARCH_ENGINE: 'http' },
      });
    }
    const gatewayPort = await freePort();
    services.gateway = start('gateway', process.execPath, [mainOf('gateway')], {
      env: { ...common, REDIS_URL: redisUrl, API_KEYS: API_KEY, PORT: String(gatewayPort), HOST: '127.0.0.1' },
    });
    const base = `http://127.0.0.1:${gatewayPort}/api/openapi/v1`;
    await waitFor(() => tcpOpen(gatewayPort), 'gateway');
    await waitFor(async () => {
      const r = await fetch(`${base}/extractTask/scrape_00000000-0000-4000-8000-000000000000`, {
        headers: { 'x-api-key': API_KEY },
      });
      return r.status === 404;
    }, 'task-service answering lookups');

    const redis = new Redis(redisUrl, { lazyConnect: false });
    const nc = await connect({ servers: natsUrl, name: 'bench-capacity' });
    const processes = () => ({
      ...Object.fromEntries(
        Object.entries(services)
          .filter(([, p]) => p.child.exitCode === null && p.child.signalCode === null)
          .map(([name, p]) => [name, p.child.pid]),
      ),
      'redis-server': redisProc.child.pid,
    });

    async function snapshot() {
      const [commandstats, stats, varz, jsz] = await Promise.all([
        redis.info('commandstats'),
        redis.info('stats'),
        monitor('/varz'),
        monitor('/jsz'),
      ]);
      const cmds = {};
      for (const [k, v] of Object.entries(parseInfo(commandstats))) {
        const m = /calls=(\d+),usec=(\d+)/.exec(v);
        if (m) cmds[k.replace(/^cmdstat_/, '')] = { calls: Number(m[1]), usec: Number(m[2]) };
      }
      const s = parseInfo(stats);
      return {
        t: performance.now(),
        cmds,
        redis: {
          commands: Number(s['total_commands_processed']),
          netIn: Number(s['total_net_input_bytes']),
          netOut: Number(s['total_net_output_bytes']),
        },
        nats: {
          inMsgs: varz.in_msgs,
          outMsgs: varz.out_msgs,
          inBytes: varz.in_bytes,
          outBytes: varz.out_bytes,
          jsApi: jsz.api?.total ?? 0,
          jsMessages: jsz.messages ?? 0,
          jsBytes: jsz.bytes ?? 0,
        },
        cpu: {
          ...Object.fromEntries(Object.entries(processes()).map(([name, pid]) => [name, cpuSeconds(pid)])),
          // Every NATS node together, and each one (a stream's leader works more than its followers).
          'nats-server': nats.pids.reduce((x, pid) => x + cpuSeconds(pid), 0),
          ...(nats.pids.length > 1
            ? Object.fromEntries(nats.pids.map((pid, i) => [`nats-server-${i}`, cpuSeconds(pid)]))
            : {}),
        },
      };
    }

    /** The cost between two snapshots, divided by `n` (tasks) or by the seconds elapsed (idle). */
    function costs(a, b, n) {
      const usecTotal = Object.keys(b.cmds).reduce((sum, k) => sum + b.cmds[k].usec - (a.cmds[k]?.usec ?? 0), 0);
      const calls = Object.entries(b.cmds)
        .map(([k, v]) => [k, v.calls - (a.cmds[k]?.calls ?? 0)])
        .filter(([, c]) => c > 0)
        .sort((x, y) => y[1] - x[1]);
      const cpu = Object.fromEntries(
        Object.keys(b.cpu)
          .filter((k) => k in a.cpu)
          .map((k) => [k, round3(((b.cpu[k] - a.cpu[k]) * 1000) / n)]),
      );
      return {
        redisCommands: perTask(b.redis.commands - a.redis.commands, n),
        redisCommandsByName: Object.fromEntries(calls.slice(0, 12).map(([k, c]) => [k, perTask(c, n)])),
        redisUsec: perTask(usecTotal, n),
        redisBytesIn: Math.round((b.redis.netIn - a.redis.netIn) / n),
        redisBytesOut: Math.round((b.redis.netOut - a.redis.netOut) / n),
        natsMsgsIn: perTask(b.nats.inMsgs - a.nats.inMsgs, n),
        natsMsgsOut: perTask(b.nats.outMsgs - a.nats.outMsgs, n),
        natsBytesIn: Math.round((b.nats.inBytes - a.nats.inBytes) / n),
        natsBytesOut: Math.round((b.nats.outBytes - a.nats.outBytes) / n),
        jsApiCalls: perTask(b.nats.jsApi - a.nats.jsApi, n),
        jsStoredMessages: perTask(b.nats.jsMessages - a.nats.jsMessages, n),
        jsStoredBytes: Math.round((b.nats.jsBytes - a.nats.jsBytes) / n),
        cpuMs: cpu,
      };
    }

    // Idle: what the stack costs with nothing to do (per second), once start-up work (browser launch) is over.
    await new Promise((r) => setTimeout(r, 5000));
    const i0 = await snapshot();
    await new Promise((r) => setTimeout(r, IDLE_S * 1000));
    const i1 = await snapshot();
    const idle = { round: 'idle', seconds: IDLE_S, perSecond: costs(i0, i1, (i1.t - i0.t) / 1000) };
    idle.load = loadavg()
      .map((x) => x.toFixed(2))
      .join(' ');
    console.log(JSON.stringify(idle));

    async function batchRound(kind, n) {
      let standIn;
      if (kind === 'url-noop') {
        standIn = nc.subscribe('scrape.page.v1', {
          queue: 'extractor-scrape',
          callback: (_e, m) => {
            const frame = JSON.parse(new TextDecoder().decode(m.data));
            const url = frame.data.url;
            const response = {
              sourceURL: url,
              taskId: 'noop',
              edgeId: 'noop',
              status: 200,
              rawStatus: 200,
              markdown: '# noop',
              metadata: { title: 'noop', url, engine: 'http', contentType: 'text/html' },
            };
            m.respond(JSON.stringify({ id: frame.id, response, isDisposed: true }));
          },
        });
        await nc.flush();
      }
      let done;
      const finished = new Promise((r) => (done = r));
      round = {
        n: kind === 'search' ? Math.ceil(n / SEARCH_BATCH) : n,
        ids: new Set(),
        duplicates: 0,
        failed: 0,
        badSignatures: 0,
        done,
      };
      const a = await snapshot();
      // A search batch is one task (one webhook) for all its queries: `n` queries go as batches of SEARCH_BATCH.
      const search = kind === 'search';
      const post = (body) =>
        fetch(`${base}/extractTask/batch${search ? '/search' : ''}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': API_KEY },
          body: JSON.stringify(body),
        }).then(async (res) => {
          const json = await res.json();
          if (res.status !== 200)
            throw new Error(`submission failed: ${res.status} ${JSON.stringify(json).slice(0, 500)}`);
          return json.data;
        });
      const jobs = search
        ? (
            await Promise.all(
              Array.from({ length: Math.ceil(n / SEARCH_BATCH) }, (_, b) =>
                post({
                  querys: Array.from({ length: Math.min(SEARCH_BATCH, n - b * SEARCH_BATCH) }, (_, i) => `q ${b} ${i}`),
                  webhook,
                  num: 10,
                  timeout: 25000,
                }),
              ),
            )
          ).flat()
        : await post({
            urls: Array.from({ length: n }, (_, i) => `${siteUrl}/p/${i}?r=${kind}`),
            webhook,
            type: 'scrape',
            timeout: 25000,
          });
      const body = { data: jobs };
      await Promise.race([
        finished,
        new Promise((_, ko) =>
          setTimeout(() => ko(new Error(`only ${round.ids.size} of ${jobs.length} webhooks`)), 900_000),
        ),
      ]);
      const tDone = performance.now();
      // Let acknowledgements, completions and the outcome stream's bookkeeping land before the second snapshot.
      await new Promise((r) => setTimeout(r, 3000));
      const b = await snapshot();
      standIn?.unsubscribe();
      // What a finished job keeps in Redis (BullMQ keeps the last 300,000 completed jobs of a queue, with their
      // return value): MEMORY USAGE of a sample of this batch's job hashes, and of the queue's event stream.
      const sample = body.data.filter((_j, i) => i % Math.max(1, Math.floor(body.data.length / 200)) === 0);
      const sizes = await Promise.all(
        sample.map((j) => redis.call('MEMORY', 'USAGE', `${j.queueQualifiedName}:${j.id}`, 'SAMPLES', '0')),
      );
      const events = `${body.data[0].queueQualifiedName}:events`;
      const [eventsBytes, eventsLength] = await Promise.all([
        redis.call('MEMORY', 'USAGE', events, 'SAMPLES', '0'),
        redis.xlen(events),
      ]);
      const seconds = (tDone - a.t) / 1000;
      const out = {
        round: kind,
        tasks: n,
        concurrency,
        seconds: round3(seconds),
        tasksPerSecond: round3(n / seconds),
        // For `search`, costs are per query; its tasks (webhooks) are batches of SEARCH_BATCH queries.
        webhooks: round.ids.size,
        failed: round.failed,
        duplicates: round.duplicates,
        badSignatures: round.badSignatures,
        perTask: costs(a, b, n),
        redisBytesPerFinishedJob: Math.round(sizes.reduce((x, y) => x + Number(y ?? 0), 0) / sizes.length),
        redisEventStream: { entries: eventsLength, bytesPerEntry: Math.round(Number(eventsBytes) / eventsLength) },
        load: loadavg()
          .map((x) => x.toFixed(2))
          .join(' '),
      };
      round = null;
      console.log(JSON.stringify(out));
      return out;
    }

    log('warm-up batch');
    await batchRound('warm-up', 100);
    const results = [];
    results.push(await batchRound('url', N));
    if (SEARCH_QUERIES > 0) results.push(await batchRound('search', SEARCH_QUERIES));
    services['extractor-scrape'].expectedExit = true;
    services['extractor-scrape'].child.kill('SIGTERM');
    await services['extractor-scrape'].exited;
    delete services['extractor-scrape'];
    results.push(await batchRound('url-noop', N));

    // What one core of Redis does: redis-benchmark on loopback, redis-server CPU time around it.
    log('redis-benchmark');
    const rb0 = cpuSeconds(redisProc.child.pid);
    const t0 = performance.now();
    const csv = execFileSync('redis-benchmark', [
      '-h',
      '127.0.0.1',
      '-p',
      String(redisPort),
      '-n',
      '100000',
      '-c',
      '50',
      '-t',
      'set,lpush,rpop,zadd,hset',
      '--csv',
    ]).toString();
    const rbSeconds = (performance.now() - t0) / 1000;
    const rbCpu = cpuSeconds(redisProc.child.pid) - rb0;
    const rbOps = {};
    for (const line of csv.trim().split('\n').slice(1)) {
      const [test, rps] = line.split(',').map((x) => x.replace(/"/g, ''));
      rbOps[test] = Math.round(Number(rps));
    }
    const rbTotal = 100_000 * Object.keys(rbOps).length;
    const redisProbe = {
      probe: 'redis-benchmark',
      clients: 50,
      pipeline: 1,
      opsPerSecond: rbOps,
      opsPerRedisCpuSecond: Math.round(rbTotal / rbCpu),
      redisCpuShare: round3(rbCpu / rbSeconds),
      load: loadavg()
        .map((x) => x.toFixed(2))
        .join(' '),
    };
    console.log(JSON.stringify(redisProbe));

    // What one NATS server does with JetStream: acknowledged publishes of an outcome-sized message (the measured
    // stored bytes per outcome) to a file-stored R1 stream, 256 in flight, nats-server CPU time around it.
    const size = Math.max(256, results[0].perTask.jsStoredBytes / NATS_NODES || 1024);
    let natsProbe;
    let natsClusterProbe;
    if (NATS_NODES > 1) {
      log(`jetstream publish probe, the ${NATS_NODES}-node cluster (R3)`);
      natsClusterProbe = await jetstreamProbe(nc, nats.pids, 3, size);
      console.log(JSON.stringify(natsClusterProbe));
    } else {
      log('jetstream publish probe, one server (R1)');
      natsProbe = await jetstreamProbe(nc, nats.pids, 1, size);
      console.log(JSON.stringify(natsProbe));
      log('jetstream publish probe, 3-node cluster (R3)');
      const cluster = await startNatsCluster(dir, 3);
      const ncCluster = await connect({ servers: cluster.urls, name: 'bench-capacity-cluster' });
      natsClusterProbe = await jetstreamProbe(ncCluster, cluster.pids, 3, size);
      console.log(JSON.stringify(natsClusterProbe));
      await ncCluster.close();
    }

    const url = results[0].perTask;
    const summary = {
      summary: true,
      tasks: N,
      redisCommandsPerTask: url.redisCommands,
      redisCpuMsPerTask: url.cpuMs['redis-server'],
      natsCpuMsPerTask: url.cpuMs['nats-server'],
      // One single-threaded Redis master: tasks per second of its CPU, from the batch and from redis-benchmark.
      tasksPerRedisCore: Math.round(1000 / url.cpuMs['redis-server']),
      tasksPerRedisCoreFromBenchmark: Math.round(redisProbe.opsPerRedisCpuSecond / url.redisCommands),
      tasksPerNatsCore: Math.round(1000 / url.cpuMs['nats-server']),
      natsNodes: NATS_NODES,
      outcomePublishesPerSecondR1: natsProbe?.publishesPerSecond,
      outcomePublishesPerSecondR3: natsClusterProbe.publishesPerSecond,
      machine: `${cpus().length} x ${cpus()[0]?.model ?? '?'}, Node ${process.version}, ${execFileSync('redis-server', ['--version']).toString().trim().split(' ').slice(0, 3).join(' ')}, ${execFileSync('nats-server', ['--version']).toString().trim()}`,
      date: new Date().toISOString(),
      load: loadavg()
        .map((x) => x.toFixed(2))
        .join(' '),
    };
    console.log(JSON.stringify(summary));
    await nc.close();
    redis.disconnect();
    receiver.closeAllConnections();
    receiver.close();
  } finally {
    await stopAll();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  async (e) => {
    log(e);
    await stopAll();
    process.exit(1);
  },
);
