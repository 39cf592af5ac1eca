#!/usr/bin/env node
// Tasks benchmark. One run, alternating rounds on the same Redis and NATS:
//  - trawl: POST /extractTask/batch with N URLs of ../shared/bench/site.mjs (type scrape; task-service asks
//    extractor-scrape for the plain-HTTP engine, markdown), through the built gateway, task-service, extractor-scrape
//    and webhook-dispatcher processes; measured from the submission to the last webhook received (every delivery's
//    Standard Webhooks signature verified). Also the latency of the submission call itself.
//  - trawl-noop: the same, but the scrape subject is answered at once by a stand-in (no page fetched): what the task
//    machinery itself costs.
//  - bare BullMQ: N no-op jobs (addBulk) on the same Redis, one Worker at the same concurrency, until all completed.
// Prints one JSON line per round and a summary line. Stops every process it started.
//
// Usage: node bench/tasks/run.mjs [--urls 10000] [--concurrency 16] [--rounds 1] [--no-build]
//        tuning only: [--noop-only] [--profile <dir>] [--dist <build dir>, with --no-build]
// Env: TRAWL_SHARED_DIR (default ../shared), SKIP_BUILD=1.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect } from '@nats-io/transport-node';
import { Queue, Worker } from 'bullmq';
import { Webhook } from 'standardwebhooks';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const argv = process.argv.slice(2);
const arg = (name, def) => (argv.includes(`--${name}`) ? argv[argv.indexOf(`--${name}`) + 1] : def);
const N = Number(arg('urls', 10_000));
const concurrency = Number(arg('concurrency', 16));
const rounds = Number(arg('rounds', 1));
const skipBuild = argv.includes('--no-build') || process.env.SKIP_BUILD === '1';
const noopOnly = argv.includes('--noop-only'); // tuning runs only: task machinery and bare BullMQ, no real scrape
const profileDir = arg('profile', ''); // tuning: write task-service and dispatcher CPU profiles here
const distDir = resolve(root, arg('dist', 'dist')); // tuning: run another build (e.g. a copy of an earlier one)
const shared = resolve(process.env.TRAWL_SHARED_DIR ?? join(root, '..', 'shared'));
const log = (...m) => console.error('[bench:tasks]', ...m);
const SECRET = `whsec_${Buffer.from('bench-tasks-signing-secret-0123456789').toString('base64')}`;
const API_KEY = 'bench-tasks-key';
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

async function main() {
  if (!skipBuild) {
    log('building');
    execFileSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
  }
  const dir = mkdtempSync(join(tmpdir(), 'trawl-bench-tasks-'));
  try {
    // Redis and NATS (JetStream; max_payload 8 MB: the reply to a 10,000-URL batch is about 4 MB).
    const redisPort = await freePort();
    start('redis', 'redis-server', [
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
    await waitFor(() => tcpOpen(redisPort), 'redis');
    const natsPort = await freePort();
    writeFileSync(
      join(dir, 'nats.conf'),
      `listen: 127.0.0.1:${natsPort}\nmax_payload: 8MB\njetstream { store_dir: "${join(dir, 'js')}" }\n`,
    );
    start('nats', 'nats-server', ['-c', join(dir, 'nats.conf')]);
    await waitFor(() => tcpOpen(natsPort), 'nats');
    const redisUrl = `redis://127.0.0.1:${redisPort}`;
    const natsUrl = `nats://127.0.0.1:${natsPort}`;

    const site = start('site', process.execPath, [join(shared, 'bench', 'site.mjs'), '--port', '0']);
    const sitePort = await waitFor(async () => JSON.parse(site.output().split('\n')[0] || 'null')?.port, 'site.mjs');
    const siteUrl = `http://127.0.0.1:${sitePort}`;

    // Webhook receiver: verifies every delivery, counts distinct webhook-ids per round. The dispatcher signs a bootstrap
    // key's webhooks with the secret derived from the master (ADR 0011), so that is what verifies them.
    const { bootstrapKeyId, deriveWebhookSecret } = await import(join(distDir, 'libs/keys/src/index.js'));
    const wh = new Webhook(deriveWebhookSecret(SECRET, bootstrapKeyId(API_KEY)));
    let round = null;
    const receiver = createHttpServer((req, res) => {
      const chunks = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        try {
          wh.verify(body, req.headers);
        } catch {
          round && round.badSignatures++;
        }
        res.statusCode = 200;
        res.end();
        if (!round) return;
        const id = req.headers['webhook-id'];
        if (!round.ids.has(id)) {
          round.ids.add(id);
          if (JSON.parse(body).status !== 'completed') round.failed++;
          if (round.ids.size === N) round.done(performance.now());
        } else round.duplicates++;
      });
    });
    await new Promise((r) => receiver.listen(0, '127.0.0.1', r));
    const webhook = `http://127.0.0.1:${receiver.address().port}/hook`;

    const common = {
      NATS_URL: natsUrl,
      LOG_LEVEL: 'warn',
      SSRF_ALLOW_HOSTS: '127.0.0.1',
      METRICS_PORT: '0',
      PATH: process.env.PATH,
    };
    const main = (name) => join(distDir, 'apps', name, 'src', 'main.js');
    start('extractor-scrape', process.execPath, [main('extractor-scrape')], {
      env: { ...common, SCRAPE_DEFAULT_ENGINE: 'http', INSTANCE_ID: 'bench-scrape' },
    });
    const prof = (name) =>
      profileDir ? ['--cpu-prof', '--cpu-prof-dir', resolve(profileDir), '--cpu-prof-name', `${name}.cpuprofile`] : [];
    start('task-service', process.execPath, [...prof('task-service'), main('task-service')], {
      env: {
        ...common,
        REDIS_URL: redisUrl,
        TASK_CONCURRENCY_SCRAPE: String(concurrency),
        TASK_SCRAPE_ENGINE: 'http',
        TASK_SCRAPE_FORMATS: 'markdown',
        TASK_SHUTDOWN_GRACE_MS: '1000',
      },
    });
    start('webhook-dispatcher', process.execPath, [...prof('webhook-dispatcher'), main('webhook-dispatcher')], {
      env: { ...common, WEBHOOK_SIGNING_SECRET: SECRET, WEBHOOK_CONCURRENCY: '64' },
    });
    const gatewayPort = await freePort();
    start('gateway', process.execPath, [main('gateway')], {
      env: { ...common, API_KEYS: API_KEY, PORT: String(gatewayPort), HOST: '127.0.0.1' },
    });
    const base = `http://127.0.0.1:${gatewayPort}/api/openapi/v1`;
    await waitFor(() => tcpOpen(gatewayPort), 'gateway');
    const nc = await connect({ servers: natsUrl, name: 'bench-tasks' });
    await waitFor(async () => {
      const r = await fetch(`${base}/extractTask/scrape_00000000-0000-4000-8000-000000000000`, {
        headers: { 'x-api-key': API_KEY },
      });
      return r.status === 404;
    }, 'task-service answering lookups');

    async function trawlRound(kind) {
      const urls = Array.from({ length: N }, (_, i) => `${siteUrl}/p/${i}`);
      let standIn;
      if (kind === 'trawl-noop') {
        // The real extractor is stopped by now; this stand-in serves its subject in its queue group.
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
      round = { ids: new Set(), duplicates: 0, failed: 0, badSignatures: 0, done };
      const t0 = performance.now();
      const res = await fetch(`${base}/extractTask/batch`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': API_KEY },
        body: JSON.stringify({ urls, webhook, type: 'scrape', timeout: 25000 }),
      });
      const body = await res.json();
      const t1 = performance.now();
      if (res.status !== 200 || body.data?.length !== N)
        throw new Error(`submission failed: ${res.status} ${JSON.stringify(body).slice(0, 500)}`);
      const tEnd = await Promise.race([
        finished,
        new Promise((_, ko) =>
          setTimeout(() => ko(new Error(`only ${round.ids.size} of ${N} webhooks in 15 min`)), 900_000),
        ),
      ]);
      // A little longer, so late duplicates would be counted.
      await new Promise((r) => setTimeout(r, 2000));
      const result = {
        round: kind,
        urls: N,
        concurrency,
        submitMs: Math.round(t1 - t0),
        totalMs: Math.round(tEnd - t0),
        tasksPerSecond: Number(((N * 1000) / (tEnd - t0)).toFixed(1)),
        webhooks: round.ids.size,
        duplicates: round.duplicates,
        failedTasks: round.failed,
        badSignatures: round.badSignatures,
      };
      round = null;
      standIn?.unsubscribe();
      return result;
    }

    async function bareRound() {
      const connection = { url: redisUrl, maxRetriesPerRequest: null };
      const name = `bench-bare-${Date.now()}`;
      const queue = new Queue(name, { connection });
      let completed = 0;
      let done;
      const finished = new Promise((r) => (done = r));
      const worker = new Worker(name, async () => null, { connection, concurrency });
      worker.on('completed', () => {
        if (++completed === N) done(performance.now());
      });
      await worker.waitUntilReady();
      const opts = {
        attempts: 5,
        removeOnComplete: 300000,
        removeOnFail: 100000,
        backoff: { type: 'fixed', delay: 1000 },
      };
      const t0 = performance.now();
      await queue.addBulk(
        Array.from({ length: N }, (_, i) => ({ name: 'noop', data: { url: `${siteUrl}/p/${i}` }, opts })),
      );
      const t1 = performance.now();
      const tEnd = await finished;
      await worker.close();
      await queue.obliterate({ force: true });
      await queue.close();
      return {
        round: 'bullmq-bare',
        jobs: N,
        concurrency,
        submitMs: Math.round(t1 - t0),
        totalMs: Math.round(tEnd - t0),
        tasksPerSecond: Number(((N * 1000) / (tEnd - t0)).toFixed(1)),
      };
    }

    const scrapeProc = started.find((p) => p.name === 'extractor-scrape');
    const results = [];
    const record = (out) => {
      out.load = loadavg()[0].toFixed(2);
      console.log(JSON.stringify(out));
      results.push(out);
    };
    for (let r = 0; r < rounds; r++) {
      if (!noopOnly) record(await trawlRound('trawl'));
      record(await bareRound());
    }
    // Then the task machinery alone: the real extractor stops, an instant stand-in answers the scrape subject.
    scrapeProc.expectedExit = true;
    scrapeProc.child.kill('SIGTERM');
    await scrapeProc.exited;
    for (let r = 0; r < rounds; r++) record(await trawlRound('trawl-noop'));
    const best = (k) => Math.max(...results.filter((x) => x.round === k).map((x) => x.tasksPerSecond));
    const summary = {
      summary: true,
      urls: N,
      concurrency,
      trawlTasksPerSecond: best('trawl'),
      trawlNoopTasksPerSecond: best('trawl-noop'),
      bullmqTasksPerSecond: best('bullmq-bare'),
      ratio: Number((best('trawl') / best('bullmq-bare')).toFixed(3)),
      ratioNoop: Number((best('trawl-noop') / best('bullmq-bare')).toFixed(3)),
      submitMs: Math.min(...results.filter((x) => x.round.startsWith('trawl')).map((x) => x.submitMs)),
      machine: `${cpus().length} x ${cpus()[0]?.model ?? '?'}, Node ${process.version}`,
      date: new Date().toISOString(),
    };
    console.log(JSON.stringify(summary));
    await nc.close();
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
