#!/usr/bin/env node
// Failover run (issue 15): a lost node of NATS and of Redis, neither coming back. Trawl's built services run as
// processes on loopback against a 3-node NATS JetStream cluster (every node in NATS_URL) and Redis as a master with 2
// replicas watched by 3 Sentinels (REDIS_SENTINELS; `--redis url` gives the services the master's REDIS_URL instead,
// as before issue 15). A URL batch of --tasks pages of a slow local site goes through gateway, task-service,
// extractor-scrape (plain-HTTP engine) and webhook-dispatcher to a local webhook receiver that verifies every Standard
// Webhooks signature. --nats-kill-after ms after submission the NATS node leading the TASK_OUTCOMES stream is
// SIGKILLed; --redis-kill-after ms after submission, the Redis master (0: Redis is not killed). No service is restarted (one that exits is
// counted, not replaced). It waits (at most --timeout s) for every task's outcome and prints one JSON line: completed,
// failed, lost (no outcome), duplicates (a task with two different outcomes), bad signatures, and the services that
// exited.
//
// Loopback only; bounded in time (--timeout, default 600 s, plus a hard bound). Stops everything it started.
// Usage: node bench/chaos/failover.mjs [--tasks 1000] [--page-delay 150] [--concurrency 8] [--nats-kill-after 4000]
//        [--redis-kill-after 8000] [--redis sentinel|url] [--stream-replicas N] [--timeout 600] [--no-build]
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { Redis } from 'ioredis';
import { Webhook } from 'standardwebhooks';
import { freePort, tcpOpen, waitFor } from './support.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const argv = process.argv.slice(2);
const arg = (name, def) => (argv.includes(`--${name}`) ? argv[argv.indexOf(`--${name}`) + 1] : def);
const TASKS = Number(arg('tasks', 1000));
const PAGE_DELAY_MS = Number(arg('page-delay', 150));
const CONCURRENCY = Number(arg('concurrency', 8));
const NATS_KILL_AFTER_MS = Number(arg('nats-kill-after', 4000));
const REDIS_KILL_AFTER_MS = Number(arg('redis-kill-after', 8000));
const REDIS_MODE = arg('redis', 'sentinel');
const STREAM_REPLICAS = arg('stream-replicas', '');
const TIMEOUT_S = Number(arg('timeout', 600));
const skipBuild = argv.includes('--no-build') || process.env.SKIP_BUILD === '1';
const log = (...m) => console.error(`[failover ${new Date().toISOString().slice(11, 19)}]`, ...m);
const SECRET = `whsec_${Buffer.from('failover-run-signing-secret-012345').toString('base64')}`;
const API_KEY = 'failover-key';
const SERVICES = ['task-service', 'extractor-scrape', 'webhook-dispatcher', 'gateway'];
const STREAM = 'TASK_OUTCOMES';
const SENTINEL_NAME = 'mymaster';

if (!['sentinel', 'url'].includes(REDIS_MODE)) throw new Error('--redis must be sentinel or url');

/** Every process started, by name (stopped at the end, SIGKILLed at the hard time bound). */
const everything = new Map();

/** A process that is not restarted when it dies; `exited` says whether it did on its own. */
class Proc {
  constructor(name, cmd, args, env) {
    Object.assign(this, { name, output: '', killed: false, stopping: false, exitedOnItsOwn: false });
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
    const keep = (d) => {
      this.output += d;
      if (this.output.length > 200_000) this.output = this.output.slice(-100_000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    this.child = child;
    this.exited = new Promise((r) => child.once('exit', r));
    child.once('exit', () => {
      if (!this.killed && !this.stopping) this.exitedOnItsOwn = true;
    });
    everything.set(name, this);
  }
  alive() {
    return this.child.exitCode === null && this.child.signalCode === null;
  }
  kill() {
    this.killed = true;
    if (this.alive()) this.child.kill('SIGKILL');
    return this.exited;
  }
  async stop() {
    this.stopping = true;
    if (!this.alive()) return;
    this.child.kill('SIGTERM');
    const t = setTimeout(() => this.child.kill('SIGKILL'), 15_000);
    await this.exited;
    clearTimeout(t);
  }
}

/** A 3-node NATS JetStream cluster; answers its nodes by server_name. */
async function startNatsCluster(dir) {
  const clientPorts = [await freePort(), await freePort(), await freePort()];
  const routePorts = [await freePort(), await freePort(), await freePort()];
  const nodes = new Map();
  for (let i = 0; i < 3; i++) {
    const name = `n${i + 1}`;
    const nodeDir = join(dir, `nats-${name}`);
    mkdirSync(nodeDir);
    const routes = routePorts.filter((_, k) => k !== i).map((p) => `nats-route://127.0.0.1:${p}`);
    writeFileSync(
      join(nodeDir, 'nats.conf'),
      [
        `server_name: ${name}`,
        `listen: 127.0.0.1:${clientPorts[i]}`,
        'max_payload: 8MB',
        `jetstream { store_dir: "${join(nodeDir, 'js')}" }`,
        `cluster { name: trawl-failover, listen: 127.0.0.1:${routePorts[i]}, routes: [${routes.join(', ')}] }`,
        '',
      ].join('\n'),
    );
    nodes.set(name, {
      url: `nats://127.0.0.1:${clientPorts[i]}`,
      proc: new Proc(`nats-${name}`, 'nats-server', ['-c', join(nodeDir, 'nats.conf')], process.env),
    });
  }
  for (const p of clientPorts) await waitFor(() => tcpOpen(p), 'nats');
  const urls = [...nodes.values()].map((n) => n.url);
  await waitFor(async () => {
    const nc = await connect({ servers: urls });
    try {
      return (await (await jetstreamManager(nc, { timeout: 2000 })).getAccountInfo()) !== undefined;
    } finally {
      await nc.close();
    }
  }, 'a JetStream meta leader');
  return { nodes, urls };
}

/** A Redis master, 2 replicas and 3 Sentinels, every one announcing loopback. */
async function startSentinelGroup(dir) {
  const data = [];
  const dataNode = (port, replicaOf) => {
    const nodeDir = join(dir, `redis-${port}`);
    mkdirSync(nodeDir);
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'yes'].concat(
      ['--maxmemory-policy', 'noeviction', '--dir', nodeDir, '--replica-announce-ip', '127.0.0.1'],
      replicaOf ? ['--replicaof', '127.0.0.1', String(replicaOf)] : [],
    );
    return new Proc(`redis-${port}`, 'redis-server', args, process.env);
  };
  const masterPort = await freePort();
  data.push({ port: masterPort, proc: dataNode(masterPort) });
  await waitFor(() => tcpOpen(masterPort), 'redis master');
  for (let i = 0; i < 2; i++) {
    const port = await freePort();
    data.push({ port, proc: dataNode(port, masterPort) });
    await waitFor(() => tcpOpen(port), 'redis replica');
  }
  const sentinels = [];
  for (let i = 0; i < 3; i++) {
    const port = await freePort();
    const conf = join(dir, `sentinel-${port}.conf`);
    writeFileSync(
      conf,
      [
        `port ${port}`,
        'bind 127.0.0.1',
        'sentinel resolve-hostnames no',
        'sentinel announce-ip 127.0.0.1',
        `sentinel monitor ${SENTINEL_NAME} 127.0.0.1 ${masterPort} 2`,
        `sentinel down-after-milliseconds ${SENTINEL_NAME} 1000`,
        `sentinel failover-timeout ${SENTINEL_NAME} 10000`,
        `sentinel parallel-syncs ${SENTINEL_NAME} 1`,
        '',
      ].join('\n'),
    );
    sentinels.push({ port, proc: new Proc(`sentinel-${port}`, 'redis-server', [conf, '--sentinel'], process.env) });
    await waitFor(() => tcpOpen(port), 'sentinel');
  }
  const master = async () => {
    for (const s of sentinels.filter((x) => x.proc.alive())) {
      const r = new Redis({ host: '127.0.0.1', port: s.port, lazyConnect: true, retryStrategy: () => null });
      r.on('error', () => undefined);
      try {
        await r.connect();
        const [, port] = await r.call('SENTINEL', 'get-master-addr-by-name', SENTINEL_NAME);
        return data.find((d) => d.port === Number(port));
      } catch {
        // the next Sentinel
      } finally {
        r.disconnect();
      }
    }
    return undefined;
  };
  // Every Sentinel sees both replicas before anything is killed.
  await waitFor(async () => {
    for (const s of sentinels) {
      const r = new Redis({ host: '127.0.0.1', port: s.port, lazyConnect: true, retryStrategy: () => null });
      r.on('error', () => undefined);
      try {
        await r.connect();
        const replicas = await r.call('SENTINEL', 'replicas', SENTINEL_NAME);
        if (replicas.length < 2) return false;
      } finally {
        r.disconnect();
      }
    }
    return true;
  }, 'the Sentinels to see both replicas');
  return { data, sentinels, master, masterUrl: `redis://127.0.0.1:${masterPort}` };
}

async function main() {
  if (!skipBuild) {
    log('building');
    execFileSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
  }
  const dir = mkdtempSync(join(tmpdir(), 'trawl-failover-'));
  const deadline = Date.now() + TIMEOUT_S * 1000;
  let site;
  let receiver;
  let nc;
  try {
    const nats = await startNatsCluster(dir);
    const redis = await startSentinelGroup(dir);
    log(`NATS cluster ${nats.urls.join(',')}; Redis master ${redis.masterUrl} with 2 replicas, 3 Sentinels`);

    site = createHttpServer((req, res) => {
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(`<!doctype html><html><head><title>${req.url}</title></head><body><h1>${req.url}</h1></body></html>`);
      }, PAGE_DELAY_MS);
    });
    await new Promise((r) => site.listen(0, '127.0.0.1', r));
    const siteUrl = `http://127.0.0.1:${site.address().port}`;

    // The dispatcher signs a bootstrap key's webhooks with the key's own secret, derived from the master (docs/webhooks.md).
    const { bootstrapKeyId, deriveWebhookSecret } = await import(join(root, 'dist/libs/keys/src/index.js'));
    const wh = new Webhook(deriveWebhookSecret(SECRET, bootstrapKeyId(API_KEY)));
    const outcomes = new Map();
    let deliveries = 0;
    let badSignatures = 0;
    receiver = createHttpServer((req, res) => {
      const chunks = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        let parsed;
        try {
          parsed = wh.verify(body, req.headers);
        } catch {
          badSignatures += 1;
          parsed = JSON.parse(body);
        }
        deliveries += 1;
        const o = outcomes.get(parsed.taskId) ?? { ids: new Set(), statuses: new Set() };
        o.ids.add(req.headers['webhook-id']);
        o.statuses.add(parsed.status);
        o.error = parsed.error?.message;
        outcomes.set(parsed.taskId, o);
        res.statusCode = 200;
        res.end();
      });
    });
    await new Promise((r) => receiver.listen(0, '127.0.0.1', r));
    const webhook = `http://127.0.0.1:${receiver.address().port}/hook`;

    const gatewayPort = await freePort();
    const redisEnv =
      REDIS_MODE === 'sentinel'
        ? {
            REDIS_SENTINELS: redis.sentinels.map((s) => `127.0.0.1:${s.port}`).join(','),
            REDIS_SENTINEL_NAME: SENTINEL_NAME,
          }
        : { REDIS_URL: redis.masterUrl };
    const common = {
      PATH: process.env.PATH,
      NATS_URL: nats.urls.join(','),
      ...redisEnv,
      ...(STREAM_REPLICAS ? { NATS_STREAM_REPLICAS: STREAM_REPLICAS } : {}),
      LOG_LEVEL: 'warn',
      SSRF_ALLOW_HOSTS: '127.0.0.1',
      METRICS_PORT: '0',
    };
    const env = {
      'task-service': {
        TASK_CONCURRENCY_SCRAPE: String(CONCURRENCY),
        TASK_SCRAPE_ENGINE: 'http',
        TASK_SCRAPE_FORMATS: 'markdown',
        TASK_OUTCOME_SWEEP_INTERVAL_MS: '2000',
      },
      'extractor-scrape': { SCRAPE_DEFAULT_ENGINE: 'http' },
      'webhook-dispatcher': { WEBHOOK_SIGNING_SECRET: SECRET, WEBHOOK_TIMEOUT_MS: '5000' },
      gateway: { API_KEYS: API_KEY, PORT: String(gatewayPort), HOST: '127.0.0.1' },
    };
    const services = new Map();
    for (const name of SERVICES) {
      services.set(
        name,
        new Proc(name, process.execPath, [join(root, 'dist', 'apps', name, 'src', 'main.js')], {
          ...common,
          ...env[name],
          INSTANCE_ID: `failover-${name}`,
        }),
      );
    }
    const base = `http://127.0.0.1:${gatewayPort}/api/openapi/v1`;
    const headers = { 'x-api-key': API_KEY, 'content-type': 'application/json' };
    await waitFor(async () => {
      const r = await fetch(`${base}/extractTask/scrape_00000000-0000-4000-8000-000000000000`, { headers });
      return r.status === 404;
    }, 'the stack answering task lookups');
    await waitFor(async () => {
      const r = await fetch(`${base}/scrape`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ url: `${siteUrl}/warm-up`, formats: ['markdown'], timeout: 5000 }),
      });
      return r.ok;
    }, 'a synchronous scrape');
    nc = await connect({ servers: nats.urls, maxReconnectAttempts: -1, reconnectTimeWait: 250 });
    const jsm = await jetstreamManager(nc, { timeout: 3000 });
    const streamInfo = await waitFor(() => jsm.streams.info(STREAM), `stream ${STREAM}`);
    log(`stack up; ${STREAM} has ${streamInfo.config.num_replicas} replica(s), leader ${streamInfo.cluster?.leader}`);

    const ids = [];
    const t0 = performance.now();
    for (let from = 0; from < TASKS; from += 10_000) {
      const urls = Array.from({ length: Math.min(10_000, TASKS - from) }, (_, i) => `${siteUrl}/p/${from + i}`);
      const res = await fetch(`${base}/extractTask/batch`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ urls, webhook, type: 'scrape', timeout: 10_000 }),
      });
      if (!res.ok) throw new Error(`batch submission answered ${res.status}: ${await res.text()}`);
      for (const j of (await res.json()).data) ids.push(j.id);
    }
    const submittedAt = Date.now();
    log(`${ids.length} tasks accepted`);
    const have = () => ids.filter((id) => outcomes.has(id)).length;

    // The NATS node leading the outcome stream, then the Redis master: SIGKILLed, not restarted.
    const kills = [];
    await new Promise((r) => setTimeout(r, Math.max(0, submittedAt + NATS_KILL_AFTER_MS - Date.now())));
    const leader = (await jsm.streams.info(STREAM)).cluster?.leader;
    const natsNode = nats.nodes.get(leader);
    if (!natsNode) throw new Error(`no leader of ${STREAM} among the nodes (${leader})`);
    await natsNode.proc.kill();
    kills.push({ part: `nats ${leader} (leader of ${STREAM})`, atMs: Date.now() - submittedAt, outcomesSoFar: have() });
    log(`SIGKILL nats ${leader}, leader of ${STREAM} (${have()} of ${ids.length} outcomes so far)`);
    let promotedAfterMs = null;
    if (REDIS_KILL_AFTER_MS > 0) promotedAfterMs = await killRedisMaster();
    async function killRedisMaster() {
      await new Promise((r) => setTimeout(r, Math.max(0, submittedAt + REDIS_KILL_AFTER_MS - Date.now())));
      const master = await redis.master();
      if (!master) throw new Error('no Sentinel names a master');
      await master.proc.kill();
      const killedMasterAt = Date.now();
      kills.push({ part: `redis master :${master.port}`, atMs: killedMasterAt - submittedAt, outcomesSoFar: have() });
      log(`SIGKILL redis master :${master.port} (${have()} of ${ids.length} outcomes so far)`);
      const promoted = await waitFor(
        async () => {
          const m = await redis.master();
          return m && m.port !== master.port ? m : undefined;
        },
        'a Sentinel failover',
        60_000,
      ).catch(() => undefined);
      const after = promoted ? Date.now() - killedMasterAt : null;
      log(promoted ? `Sentinels promoted :${promoted.port} after ${after} ms` : 'no replica promoted');
      return after;
    }

    let last = -1;
    for (;;) {
      const n = have();
      if (n === ids.length) break;
      if (Date.now() > deadline) {
        log(`deadline: ${ids.length - n} tasks without an outcome`);
        break;
      }
      if (n !== last && n % 200 < 20) log(`${n} of ${ids.length} outcomes`);
      last = n;
      await new Promise((r) => setTimeout(r, 500));
    }
    const seconds = (performance.now() - t0) / 1000;
    // A late duplicate would show in this time.
    await new Promise((r) => setTimeout(r, 5000));

    let completed = 0;
    let failed = 0;
    let lost = 0;
    let duplicates = 0;
    const failures = {};
    for (const id of ids) {
      const o = outcomes.get(id);
      if (!o) {
        lost += 1;
        continue;
      }
      if (o.ids.size > 1 || o.statuses.size > 1) duplicates += 1;
      if (o.statuses.has('completed')) completed += 1;
      else {
        failed += 1;
        failures[o.error] = (failures[o.error] ?? 0) + 1;
      }
    }
    const after = await jsm.streams.info(STREAM).catch((e) => ({ error: String(e) }));
    const result = {
      mode: 'failover',
      date: new Date().toISOString(),
      machine: { cpus: cpus().length, cpu: cpus()[0]?.model, memGb: Math.round(totalmem() / 2 ** 30), load: loadavg() },
      redis: REDIS_MODE,
      streamReplicas: streamInfo.config.num_replicas,
      tasks: ids.length,
      pageDelayMs: PAGE_DELAY_MS,
      concurrency: CONCURRENCY,
      kills,
      promotedAfterMs,
      streamLeaderAfter: after.cluster?.leader ?? after.error ?? null,
      seconds: Math.round(seconds),
      completed,
      failed,
      lost,
      duplicates,
      badSignatures,
      deliveries,
      failures,
      servicesExited: [...services.values()].filter((p) => p.exitedOnItsOwn).map((p) => p.name),
    };
    console.log(JSON.stringify(result));
    for (const p of services.values()) {
      if (p.exitedOnItsOwn) log(`--- ${p.name} exited:\n${p.output.slice(-2000)}`);
    }
    if (lost + failed > 0) {
      for (const p of services.values()) log(`--- ${p.name} (last output):\n${p.output.slice(-1500)}`);
    }
    process.exitCode = failed + lost + duplicates + badSignatures === 0 ? 0 : 1;
  } finally {
    await nc?.close().catch(() => undefined);
    for (const name of [...SERVICES].reverse()) await everything.get(name)?.stop();
    await Promise.all([...everything.values()].map((p) => p.stop()));
    site?.close();
    receiver?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const bound = setTimeout(
  () => {
    log('hard time bound reached; stopping');
    for (const p of everything.values()) {
      p.stopping = true;
      if (p.alive()) p.child.kill('SIGKILL');
    }
    process.exit(2);
  },
  (TIMEOUT_S + 180) * 1000,
);
bound.unref();
main().catch((e) => {
  log(e);
  process.exitCode = 1;
});
