// Bench of issue 12 must-show 6: searches/s with the http, browser and auto engines against an HTTP-friendly
// upstream (the simulator's classic mode) and the 2026 one; in the same run, rendered searches/s against /scrape's
// browser pages/s on the same pages (target >= 0.8); auto against http on the HTTP-friendly upstream (target: within
// 5%). Starts nats-server, two simulators, extractor-scrape and two extractor-search processes (one per upstream) from
// dist/ on free loopback ports, and drives them over NATS as the gateway does. Loopback only. Prints JSON lines.
//
//   node bench/engines/run.mjs [--requests 60] [--concurrency 4] [--rounds 2]
import { spawn } from 'node:child_process';
import { createServer, connect } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const { buildSearchUrl } = await import(join(root, 'dist/libs/parsers/src/index.js'));
const { connectNats, MessagingClient } = await import(join(root, 'dist/libs/messaging/src/index.js'));
const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '60' },
    concurrency: { type: 'string', default: '4' },
    rounds: { type: 'string', default: '2' },
  },
});
const REQUESTS = Number(values.requests);
const CONCURRENCY = Number(values.concurrency);
const ROUNDS = Number(values.rounds);
const QUERIES = Array.from({ length: 30 }, (_, i) => `bench engine query ${i}`);

const freePort = () =>
  new Promise((res, rej) => {
    const s = createServer();
    s.on('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
  });

const waitPort = async (port, proc, name) => {
  for (let i = 0; i < 600; i++) {
    if (proc.exitCode !== null) throw new Error(`${name} exited: ${proc.out}`);
    const ok = await new Promise((r) => {
      const c = connect(port, '127.0.0.1', () => (c.destroy(), r(true)));
      c.on('error', () => r(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${name} did not listen on ${port}`);
};

const procs = [];
function start(name, args, env) {
  const p = spawn(args[0], args.slice(1), {
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  p.out = '';
  p.stdout.on('data', (d) => (p.out = (p.out + d).slice(-4000)));
  p.stderr.on('data', (d) => (p.out = (p.out + d).slice(-4000)));
  p.benchName = name;
  procs.push(p);
  return p;
}
async function stopAll() {
  await Promise.all(
    procs.map(
      (p) =>
        new Promise((r) => {
          if (p.exitCode !== null || p.signalCode !== null) return r();
          p.once('exit', r);
          p.kill('SIGTERM');
          setTimeout(() => p.kill('SIGKILL'), 15000).unref();
        }),
    ),
  );
}

const round = (n, d = 2) => Math.round(n * 10 ** d) / 10 ** d;

/** Failures by message, over the whole run (a failed call is counted, not retried, and not in the rate). */
const failures = {};

/** Runs `count` calls of `fn(i)` with at most `concurrency` in flight; returns successful calls per second. */
async function rate(count, concurrency, fn) {
  let next = 0;
  let ok = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        try {
          await fn(next++);
          ok++;
        } catch (e) {
          const key = String(e?.message ?? e).slice(0, 120);
          failures[key] = (failures[key] ?? 0) + 1;
        }
      }
    }),
  );
  return (ok * 1000) / (performance.now() - started);
}

try {
  const [natsPort, classicPort, modernPort] = await Promise.all([freePort(), freePort(), freePort()]);
  const nats = start('nats-server', ['nats-server', '-a', '127.0.0.1', '-p', String(natsPort)], {});
  const simMain = join(root, 'dist/tools/upstream-simulator/src/main.js');
  const classic = start('simulator classic', [process.execPath, simMain], { SIMULATOR_PORT: String(classicPort) });
  const modern = start('simulator 2026', [process.execPath, simMain], {
    SIMULATOR_PORT: String(modernPort),
    SIMULATOR_MODE: '2026',
  });
  await Promise.all([
    waitPort(natsPort, nats, 'nats-server'),
    waitPort(classicPort, classic, 'simulator'),
    waitPort(modernPort, modern, 'simulator 2026'),
  ]);
  const natsUrl = `nats://127.0.0.1:${natsPort}`;
  const base = { NATS_URL: natsUrl, SSRF_ALLOW_HOSTS: '127.0.0.1', METRICS_PORT: '0', LOG_LEVEL: 'warn' };
  start('extractor-scrape', [process.execPath, join(root, 'dist/apps/extractor-scrape/src/main.js')], {
    ...base,
    HOME: process.env.HOME ?? '/tmp',
    ...(process.env.CHROMIUM_PATH ? { CHROMIUM_PATH: process.env.CHROMIUM_PATH } : {}),
  });
  // One extractor-search per upstream; the engine is the request's.
  const searchMain = join(root, 'dist/apps/extractor-search/src/main.js');
  const upstreams = {
    classic: `http://127.0.0.1:${classicPort}`,
    2026: `http://127.0.0.1:${modernPort}`,
  };
  // Both would serve the same subject, so each runs alone in its phase (started, measured, stopped).
  const nc = await connectNats([natsUrl], 'bench-engines');
  const messaging = new MessagingClient(nc);

  const search = (engine) => async (i) => {
    const r = await messaging.send(
      'extract.search.v1',
      { q: QUERIES[i % QUERIES.length], timeout: 30000, engine },
      { timeoutMs: 30000 },
    );
    if (r.results.length === 0) throw new Error('no results');
  };
  const scrape = (upstream) => async (i) => {
    const url = buildSearchUrl(upstream, { q: QUERIES[i % QUERIES.length], num: 10 });
    const r = await messaging.send(
      'scrape.page.v1',
      { url, formats: ['html'], timeout: 30000, engine: 'browser' },
      { timeoutMs: 30000 },
    );
    if (!r.html) throw new Error('no html');
  };
  const until = async (fn) => {
    for (let i = 0; ; i++) {
      try {
        return await fn(0);
      } catch (e) {
        if (i > 300) throw e;
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  };
  await until(scrape(upstreams.classic));

  const figures = {};
  for (const [mode, upstream] of Object.entries(upstreams)) {
    const extractor = start(`extractor-search ${mode}`, [process.execPath, searchMain], {
      ...base,
      SEARCH_BASE_URL: upstream,
    });
    await until(search('auto'));
    const engines = mode === 'classic' ? ['http', 'auto', 'browser'] : ['auto', 'browser'];
    for (const engine of engines) await rate(Math.min(10, REQUESTS), CONCURRENCY, search(engine)); // warm-up
    for (let r = 0; r < ROUNDS; r++) {
      // Alternating rounds, so each engine sees the same machine load.
      for (const engine of engines) {
        const key = `${mode}.${engine}`;
        (figures[key] ??= []).push(await rate(REQUESTS, CONCURRENCY, search(engine)));
        if (mode === 'classic' && engine === 'browser') {
          (figures['classic.scrape-browser'] ??= []).push(await rate(REQUESTS, CONCURRENCY, scrape(upstream)));
        }
      }
    }
    // http against the 2026 upstream: every search fails on the wall; measured as failures per second for the record.
    if (mode === '2026') {
      const failed = await rate(REQUESTS, CONCURRENCY, (i) =>
        search('http')(i).then(
          () => undefined,
          () => undefined,
        ),
      );
      figures['2026.http-failures'] = [failed];
    }
    await new Promise((res) => {
      extractor.once('exit', res);
      extractor.kill('SIGTERM');
    });
  }
  await nc.close();
  const mean = (xs) => xs.reduce((s, x) => s + x, 0) / xs.length;
  const out = Object.fromEntries(Object.entries(figures).map(([k, xs]) => [k, xs.map((x) => round(x, 1))]));
  console.log(
    JSON.stringify({
      bench: 'engines',
      requests: REQUESTS,
      concurrency: CONCURRENCY,
      rounds: ROUNDS,
      perSecond: out,
      failures,
    }),
  );
  console.log(
    JSON.stringify({
      bench: 'engines-summary',
      renderedSearchesVsScrapePages: round(mean(figures['classic.browser']) / mean(figures['classic.scrape-browser'])),
      autoVsHttpOnFriendlyUpstream: round(mean(figures['classic.auto']) / mean(figures['classic.http'])),
      auto2026VsBrowser2026: round(mean(figures['2026.auto']) / mean(figures['2026.browser'])),
    }),
  );
} finally {
  await stopAll();
}
