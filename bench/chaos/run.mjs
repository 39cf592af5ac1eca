#!/usr/bin/env node
// Chaos run (issue 11): every part of Trawl as its own process on loopback, under a small supervisor that restarts
// whatever dies after --restart-after ms (as a Deployment would). A URL batch of --tasks pages of a slow local site
// (--page-delay ms a page) goes through the built gateway, task-service, extractor-scrape (plain-HTTP engine) and
// webhook-dispatcher to a local webhook receiver that verifies every Standard Webhooks signature. Meanwhile each part
// is SIGKILLed in turn, --kill-every ms apart, for --rounds rounds: task-service, extractor-scrape,
// webhook-dispatcher, nats-server, gateway, redis-server. Then it waits (at most --timeout s) for every task's
// outcome and prints one JSON line: completed, failed, lost (no outcome), duplicates (a task with two different
// outcomes), bad signatures, and each service's RSS at start and end.
//
// Soak mode (--soak): 50,000 tasks, no kills unless --rounds is given, RSS of each service at start and end.
//
// Loopback only; bounded in time (--timeout, default 900 s; 3600 s with --soak). Stops everything it started.
// Usage: node bench/chaos/run.mjs [--tasks 3000] [--rounds 3] [--kill-every 2000] [--restart-after 1000]
//        [--page-delay 150] [--concurrency 8] [--timeout 900] [--soak] [--no-build]
//        [--page-bytes 0]   (a paragraph of that many characters on each page: results of a real page's size)
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Webhook } from 'standardwebhooks';
import { freePort, tcpOpen, waitFor } from './support.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const argv = process.argv.slice(2);
const arg = (name, def) => (argv.includes(`--${name}`) ? argv[argv.indexOf(`--${name}`) + 1] : def);
const soak = argv.includes('--soak');
const TASKS = Number(arg('tasks', soak ? 50_000 : 3000));
const ROUNDS = Number(arg('rounds', soak ? 0 : 3));
const KILL_EVERY_MS = Number(arg('kill-every', 2000));
const RESTART_AFTER_MS = Number(arg('restart-after', 1000));
const PAGE_DELAY_MS = Number(arg('page-delay', soak ? 20 : 150));
const PAGE_TEXT = 'x'.repeat(Number(arg('page-bytes', 0)));
const CONCURRENCY = Number(arg('concurrency', soak ? 16 : 8));
const TIMEOUT_S = Number(arg('timeout', soak ? 3600 : 900));
const skipBuild = argv.includes('--no-build') || process.env.SKIP_BUILD === '1';
const log = (...m) => console.error(`[chaos ${new Date().toISOString().slice(11, 19)}]`, ...m);
const SECRET = `whsec_${Buffer.from('chaos-run-signing-secret-0123456789').toString('base64')}`;
const API_KEY = 'chaos-key';
const SERVICES = ['task-service', 'extractor-scrape', 'webhook-dispatcher', 'gateway'];
const KILL_ORDER = ['task-service', 'extractor-scrape', 'webhook-dispatcher', 'nats', 'gateway', 'redis'];

/** Every supervised process, by name (stopped at the end, killed at the hard time bound). */
const everything = new Map();

/** A supervised process: started again `RESTART_AFTER_MS` after it dies, until the run stops. */
class Supervised {
  constructor(name, cmd, args, env) {
    Object.assign(this, { name, cmd, args, env, restarts: 0, output: '', stopping: false });
    this.spawn();
  }
  spawn() {
    const child = spawn(this.cmd, this.args, { stdio: ['ignore', 'pipe', 'pipe'], env: this.env });
    const keep = (d) => {
      this.output += d;
      if (this.output.length > 200_000) this.output = this.output.slice(-100_000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    this.child = child;
    this.exited = new Promise((r) => child.once('exit', r));
    child.once('exit', () => {
      if (this.stopping) return;
      setTimeout(() => {
        if (this.stopping) return;
        this.restarts += 1;
        this.spawn();
      }, RESTART_AFTER_MS);
    });
  }
  kill(signal = 'SIGKILL') {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
  }
  /** Resident set size of the current process, MB (from /proc). */
  rssMb() {
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${this.child.pid}/status`, 'utf8'));
      return m ? Math.round(Number(m[1]) / 1024) : null;
    } catch {
      return null;
    }
  }
  async stop() {
    this.stopping = true;
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill('SIGTERM');
    const t = setTimeout(() => this.child.kill('SIGKILL'), 15_000);
    await this.exited;
    clearTimeout(t);
  }
}

async function main() {
  if (!skipBuild) {
    log('building');
    execFileSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
  }
  const dir = mkdtempSync(join(tmpdir(), 'trawl-chaos-'));
  const parts = everything;
  const deadline = Date.now() + TIMEOUT_S * 1000;
  let site;
  let receiver;
  try {
    // Redis with AOF (BullMQ's state must survive its restarts), NATS with a JetStream file store.
    const redisPort = await freePort();
    parts.set(
      'redis',
      new Supervised(
        'redis',
        'redis-server',
        ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'yes'].concat([
          '--maxmemory-policy',
          'noeviction',
          '--dir',
          dir,
        ]),
        process.env,
      ),
    );
    await waitFor(() => tcpOpen(redisPort), 'redis');
    const natsPort = await freePort();
    writeFileSync(
      join(dir, 'nats.conf'),
      `listen: 127.0.0.1:${natsPort}\nmax_payload: 8MB\njetstream { store_dir: "${join(dir, 'js')}" }\n`,
    );
    parts.set('nats', new Supervised('nats', 'nats-server', ['-c', join(dir, 'nats.conf')], process.env));
    await waitFor(() => tcpOpen(natsPort), 'nats');

    // The slow local site.
    site = createHttpServer((req, res) => {
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(
          `<!doctype html><html><head><title>${req.url}</title></head><body><h1>${req.url}</h1>` +
            (PAGE_TEXT ? `<p>${PAGE_TEXT}</p>` : '') +
            '</body></html>',
        );
      }, PAGE_DELAY_MS);
    });
    await new Promise((r) => site.listen(0, '127.0.0.1', r));
    const siteUrl = `http://127.0.0.1:${site.address().port}`;

    // The webhook receiver: per task, the distinct webhook-ids and final statuses it was sent.
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
        const o = outcomes.get(parsed.taskId) ?? { ids: new Set(), statuses: new Set(), attempts: 0 };
        o.ids.add(req.headers['webhook-id']);
        o.statuses.add(parsed.status);
        o.attempts = parsed.attemptsMade;
        o.error = parsed.error?.message;
        // A completed outcome must carry the whole page (with --page-bytes: its paragraph in the markdown).
        if (parsed.status === 'completed' && !(parsed.data?.markdown ?? '').includes(PAGE_TEXT)) o.partial = true;
        outcomes.set(parsed.taskId, o);
        res.statusCode = 200;
        res.end();
      });
    });
    await new Promise((r) => receiver.listen(0, '127.0.0.1', r));
    const webhook = `http://127.0.0.1:${receiver.address().port}/hook`;

    const gatewayPort = await freePort();
    const common = {
      PATH: process.env.PATH,
      NATS_URL: `nats://127.0.0.1:${natsPort}`,
      REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      LOG_LEVEL: 'warn',
      SSRF_ALLOW_HOSTS: '127.0.0.1',
      METRICS_PORT: '0',
    };
    const env = {
      'task-service': {
        TASK_CONCURRENCY_SCRAPE: String(CONCURRENCY),
        TASK_SCRAPE_ENGINE: 'http',
        TASK_SCRAPE_FORMATS: 'markdown',
        // A killed replica's jobs come back after their lock lapses; outcomes NATS missed are swept.
        TASK_LOCK_DURATION_MS: '10000',
        TASK_STALLED_INTERVAL_MS: '5000',
        TASK_OUTCOME_SWEEP_INTERVAL_MS: '2000',
      },
      'extractor-scrape': { SCRAPE_DEFAULT_ENGINE: 'http' },
      'webhook-dispatcher': { WEBHOOK_SIGNING_SECRET: SECRET, WEBHOOK_TIMEOUT_MS: '5000' },
      gateway: { API_KEYS: API_KEY, PORT: String(gatewayPort), HOST: '127.0.0.1' },
    };
    for (const name of SERVICES) {
      parts.set(
        name,
        new Supervised(name, process.execPath, [join(root, 'dist', 'apps', name, 'src', 'main.js')], {
          ...common,
          ...env[name],
          INSTANCE_ID: `chaos-${name}`,
        }),
      );
    }
    const base = `http://127.0.0.1:${gatewayPort}/api/openapi/v1`;
    const headers = { 'x-api-key': API_KEY, 'content-type': 'application/json' };
    await waitFor(async () => {
      const r = await fetch(`${base}/extractTask/scrape_00000000-0000-4000-8000-000000000000`, { headers });
      return r.status === 404;
    }, 'the stack answering task lookups');
    // Every extractor ready: one synchronous scrape answers.
    await waitFor(async () => {
      const r = await fetch(`${base}/scrape`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ url: `${siteUrl}/warm-up`, formats: ['markdown'], timeout: 5000 }),
      });
      return r.ok;
    }, 'a synchronous scrape');
    const rssStart = Object.fromEntries([...parts].map(([n, p]) => [n, p.rssMb()]));
    log(`stack up; RSS MB ${JSON.stringify(rssStart)}`);

    // The batch, in calls of at most 10,000 URLs (the API's limit), before anything is killed.
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
    log(`${ids.length} tasks accepted`);

    // Kills: each part in turn, KILL_EVERY_MS apart, ROUNDS rounds.
    const kills = [];
    for (let round = 1; round <= ROUNDS; round++) {
      for (const name of KILL_ORDER) {
        await new Promise((r) => setTimeout(r, KILL_EVERY_MS));
        const done = ids.filter((id) => outcomes.has(id)).length;
        parts.get(name).kill('SIGKILL');
        kills.push({ round, name, outcomesSoFar: done });
        log(`round ${round}: SIGKILL ${name} (${done} of ${ids.length} outcomes so far)`);
      }
    }

    // Every task's outcome, or the deadline.
    let last = -1;
    for (;;) {
      const have = ids.filter((id) => outcomes.has(id)).length;
      if (have === ids.length) break;
      if (Date.now() > deadline) {
        log(`deadline: ${ids.length - have} tasks without an outcome`);
        break;
      }
      if (have !== last && have % 500 < 50) log(`${have} of ${ids.length} outcomes`);
      last = have;
      await new Promise((r) => setTimeout(r, 500));
    }
    const seconds = (performance.now() - t0) / 1000;
    // A late duplicate would show in this time (a redelivery after the dispatcher's ack wait is the same outcome).
    await new Promise((r) => setTimeout(r, 5000));
    const rssEnd = Object.fromEntries([...parts].map(([n, p]) => [n, p.rssMb()]));

    let completed = 0;
    let failed = 0;
    let lost = 0;
    let duplicates = 0;
    let partial = 0;
    const attempts = {};
    const failures = {};
    for (const id of ids) {
      const o = outcomes.get(id);
      if (!o) {
        lost += 1;
        continue;
      }
      if (o.ids.size > 1 || o.statuses.size > 1) duplicates += 1;
      if (o.partial) partial += 1;
      if (o.statuses.has('completed')) completed += 1;
      else {
        failed += 1;
        failures[o.error] = (failures[o.error] ?? 0) + 1;
      }
      attempts[o.attempts] = (attempts[o.attempts] ?? 0) + 1;
    }
    const result = {
      mode: soak ? 'soak' : 'chaos',
      pageBytes: PAGE_TEXT.length,
      date: new Date().toISOString(),
      machine: { cpus: cpus().length, cpu: cpus()[0]?.model, memGb: Math.round(totalmem() / 2 ** 30), load: loadavg() },
      tasks: ids.length,
      rounds: ROUNDS,
      killEveryMs: KILL_EVERY_MS,
      restartAfterMs: RESTART_AFTER_MS,
      pageDelayMs: PAGE_DELAY_MS,
      concurrency: CONCURRENCY,
      seconds: Math.round(seconds),
      completed,
      failed,
      lost,
      duplicates,
      partialResults: partial,
      badSignatures,
      deliveries,
      attemptsMade: attempts,
      failures,
      kills: kills.length,
      restarts: Object.fromEntries([...parts].map(([n, p]) => [n, p.restarts])),
      rssMbStart: rssStart,
      rssMbEnd: rssEnd,
    };
    console.log(JSON.stringify(result));
    process.exitCode = failed + lost + duplicates + badSignatures === 0 ? 0 : 1;
  } finally {
    for (const name of [...SERVICES].reverse()) await parts.get(name)?.stop();
    await parts.get('nats')?.stop();
    await parts.get('redis')?.stop();
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
      p.kill('SIGKILL');
    }
    process.exit(2);
  },
  (TIMEOUT_S + 120) * 1000,
);
bound.unref();
main().catch((e) => {
  log(e);
  process.exitCode = 1;
});
