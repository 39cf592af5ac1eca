// Bench (b): POST /extract/search through the gateway (process), NATS and extractor-search (process) against the
// upstream simulator (process), versus the same parse in one process with no network. Loopback only; bounded count
// and concurrency. Reads dist/ (npm run build). Prints one JSON line.
//
//   node bench/parse-and-path/path.mjs [--requests 400] [--concurrency 8] [--latency-requests 200] [--queries 50]
//        [--dist <dir>]      (the build to run, default dist/: a copy of an older build compares before and after)
//        [--parse-threads <n>] (extractor-search's PARSE_THREADS; its default otherwise)
//        [--profile <dir>]   (writes the CPU profiles of the gateway and of extractor-search's threads, over the
//                             whole run, under Node's default names; the JSON line gives the two pids)
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '400' },
    concurrency: { type: 'string', default: '8' },
    'latency-requests': { type: 'string', default: '200' },
    queries: { type: 'string', default: '50' },
    dist: { type: 'string', default: join(root, 'dist') },
    profile: { type: 'string' },
    'parse-threads': { type: 'string' },
  },
});
const dist = resolve(values.dist);
// Node's default profile names (pid and thread id) keep the extractor's parse threads apart from its main thread.
const prof = () => (values.profile ? ['--cpu-prof', '--cpu-prof-dir', resolve(values.profile)] : []);
const { parseSearchPage, buildSearchUrl } = await import(join(dist, 'libs/parsers/src/index.js'));
const { renderSearchPage } = await import(join(dist, 'tools/upstream-simulator/src/pages/search.page.js'));
const { connectNats, MessagingClient } = await import(join(dist, 'libs/messaging/src/index.js'));
const REQUESTS = Number(values.requests);
const CONCURRENCY = Number(values.concurrency);
const LATENCY_REQUESTS = Number(values['latency-requests']);
const QUERIES = Array.from({ length: Number(values.queries) }, (_, i) => `bench query number ${i}`);
const KEY = 'bench-key';

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
  for (let i = 0; i < 400; i++) {
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
function start(name, cmd, args, env) {
  const p = spawn(cmd, args, { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  p.out = '';
  p.stdout.on('data', (d) => (p.out = (p.out + d).slice(-4000)));
  p.stderr.on('data', (d) => (p.out = (p.out + d).slice(-4000)));
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

/** CPU time (user + system, ms) a process has used so far, from /proc/<pid>/stat (every thread). */
const cpuMs = (pid) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1000) / 100; // utime + stime, at USER_HZ 100
  } catch {
    return NaN;
  }
};

/** CPU ms of each thread of a process so far, by thread name (`comm`: node's main thread, libuv/V8 helpers, workers). */
const threadCpuMs = (pid) => {
  const out = {};
  let tids = [];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tids) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const comm = tid === String(pid) ? 'main' : stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out[comm] = (out[comm] ?? 0) + ((Number(f[11]) + Number(f[12])) * 1000) / 100;
    } catch {
      // the thread ended
    }
  }
  return out;
};

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const round = (n, d = 2) => Math.round(n * 10 ** d) / 10 ** d;

/** Runs `count` calls of `fn(i)` with at most `concurrency` in flight; returns per-call ms and the wall time. */
async function load(count, concurrency, fn) {
  const latencies = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        const t = performance.now();
        await fn(i);
        latencies.push(performance.now() - t);
      }
    }),
  );
  return { latencies, wallMs: performance.now() - started };
}

try {
  const [natsPort, simPort, gwPort] = await Promise.all([freePort(), freePort(), freePort()]);
  const nats = start('nats-server', 'nats-server', ['-a', '127.0.0.1', '-p', String(natsPort)], {});
  const sim = start('simulator', process.execPath, [join(dist, 'tools/upstream-simulator/src/main.js')], {
    SIMULATOR_PORT: String(simPort),
  });
  await Promise.all([waitPort(natsPort, nats, 'nats-server'), waitPort(simPort, sim, 'simulator')]);
  const natsUrl = `nats://127.0.0.1:${natsPort}`;
  const simUrl = `http://127.0.0.1:${simPort}`;
  const extractor = start(
    'extractor-search',
    process.execPath,
    [...prof(), join(dist, 'apps/extractor-search/src/main.js')],
    {
      NATS_URL: natsUrl,
      SEARCH_BASE_URL: simUrl,
      SSRF_ALLOW_HOSTS: '127.0.0.1',
      METRICS_PORT: '0',
      LOG_LEVEL: 'warn',
      ...(values['parse-threads'] ? { PARSE_THREADS: values['parse-threads'] } : {}),
    },
  );
  const gw = start('gateway', process.execPath, [...prof(), join(dist, 'apps/gateway/src/main.js')], {
    NATS_URL: natsUrl,
    PORT: String(gwPort),
    HOST: '127.0.0.1',
    API_KEYS: KEY,
    API_KEY_DEFAULT_RATE: '100000000/1s',
    API_KEY_DEFAULT_CONCURRENCY: '10000',
    LOG_LEVEL: 'warn',
  });
  await waitPort(gwPort, gw, 'gateway');

  const viaGateway = async (i) => {
    const res = await fetch(`http://127.0.0.1:${gwPort}/api/openapi/v1/extract/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': KEY },
      body: JSON.stringify({ q: QUERIES[i % QUERIES.length], timeout: 20000 }),
    });
    const body = await res.json();
    if (res.status !== 200 || body.data.results.length === 0)
      throw new Error(`HTTP ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
  };
  // Wait until the extractor serves (it starts after the gateway may already listen).
  for (let i = 0; ; i++) {
    try {
      await viaGateway(0);
      break;
    } catch (e) {
      if (i > 200) throw e;
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  // The same pages, fetched once: what the extractor fetches for each query.
  const pageUrl = (q) => buildSearchUrl(simUrl, { q, num: 10 });
  const pages = await Promise.all(QUERIES.map(async (q) => (await fetch(pageUrl(q))).text()));
  const parseOnly = (i) => {
    if (parseSearchPage(pages[i % pages.length], { pageOffset: 0 }).results.length === 0) throw new Error('no results');
  };
  const fetchAndParse = async (i) => {
    const html = await (await fetch(pageUrl(QUERIES[i % QUERIES.length]))).text();
    if (parseSearchPage(html, { pageOffset: 0 }).results.length === 0) throw new Error('no results');
  };

  const nc = await connectNats([natsUrl], 'bench');
  const messaging = new MessagingClient(nc);
  const viaNats = async (i) => {
    const r = await messaging.send(
      'extract.search.v1',
      { q: QUERIES[i % QUERIES.length], timeout: 20000 },
      { timeoutMs: 20000 },
    );
    if (r.results.length === 0) throw new Error('no results');
  };
  const renderOnly = (i) => renderSearchPage({ q: QUERIES[i % QUERIES.length], num: 10 });

  // Warm-up of every side.
  await load(30, 1, viaNats);
  await load(30, 1, async (i) => renderOnly(i));
  await load(60, CONCURRENCY, viaGateway);
  await load(60, 1, async (i) => parseOnly(i));
  await load(30, 1, fetchAndParse);

  // Throughput.
  const cpuOf = () => Object.fromEntries(procs.map((p, i) => [names[i], cpuMs(p.pid)]));
  const names = ['nats-server', 'simulator', 'extractor-search', 'gateway'];
  const cpuBefore = cpuOf();
  const threadsBefore = threadCpuMs(extractor.pid);
  const path = await load(REQUESTS, CONCURRENCY, viaGateway);
  const cpuAfter = cpuOf();
  const threadsAfter = threadCpuMs(extractor.pid);
  // The extractor's CPU per request by thread (its main thread: NATS, validation, fetch, serialisation; the parse
  // pool's threads; V8's and libuv's helpers), ms.
  const extractorThreadsMs = Object.fromEntries(
    Object.keys(threadsAfter).map((k) => [k, round((threadsAfter[k] - (threadsBefore[k] ?? 0)) / REQUESTS, 3)]),
  );
  // CPU each process spent per request in the throughput phase, ms (the bench process's own is not counted).
  const cpuPerRequestMs = Object.fromEntries(names.map((n) => [n, round((cpuAfter[n] - cpuBefore[n]) / REQUESTS, 3)]));
  const inProcess = await load(REQUESTS, 1, async (i) => parseOnly(i));
  const render = await load(REQUESTS, 1, async (i) => renderOnly(i));
  const pathRps = (REQUESTS * 1000) / path.wallMs;
  const renderRps = (REQUESTS * 1000) / render.wallMs;
  const parseRps = (REQUESTS * 1000) / inProcess.wallMs;

  // Latency, one request at a time, the three ways interleaved (so they share the machine's load): the whole path,
  // NATS straight to the extractor, and the extractor's own work (fetch + parse) in this process.
  const gwLat = [];
  const natsLat = [];
  const directLat = [];
  for (let i = 0; i < LATENCY_REQUESTS; i++) {
    for (const [fn, into] of [
      [viaGateway, gwLat],
      [viaNats, natsLat],
      [fetchAndParse, directLat],
    ]) {
      const t = performance.now();
      await fn(i);
      into.push(performance.now() - t);
    }
  }

  // Gateway + NATS alone: the extractor replaced by a responder that answers at once with a real result (the one of
  // query 0), so the figure is what the two hops add whatever the extractor does.
  const cached = await messaging.send('extract.search.v1', { q: QUERIES[0], timeout: 20000 }, { timeoutMs: 20000 });
  await new Promise((r) => {
    extractor.once('exit', r);
    // SIGTERM when profiling: a killed process writes no profile.
    extractor.kill(values.profile ? 'SIGTERM' : 'SIGKILL');
  });
  const reply = (id) => JSON.stringify({ id, response: cached, isDisposed: true });
  nc.subscribe('extract.search.v1', {
    queue: 'extractor-search',
    callback: (_e, m) => m.respond(reply(JSON.parse(new TextDecoder().decode(m.data)).id)),
  });
  await nc.flush();
  const stubGw = [];
  const stubNats = [];
  for (let i = 0; i < 30; i++) await viaGateway(i);
  for (let i = 0; i < LATENCY_REQUESTS; i++) {
    for (const [fn, into] of [
      [viaGateway, stubGw],
      [viaNats, stubNats],
    ]) {
      const t = performance.now();
      await fn(i);
      into.push(performance.now() - t);
    }
  }
  await nc.close();
  const parseLat = median(inProcess.latencies);

  console.log(
    JSON.stringify({
      bench: 'search-path',
      ...(values.profile ? { pids: { gateway: gw.pid, extractor: extractor.pid } } : {}),
      requests: REQUESTS,
      concurrency: CONCURRENCY,
      queries: QUERIES.length,
      avgPageKB: round(pages.reduce((s, p) => s + p.length, 0) / pages.length / 1024, 1),
      pathRequestsPerSecond: round(pathRps, 1),
      inProcessParsesPerSecond: round(parseRps, 1),
      ratio: round(pathRps / parseRps),
      simulatorRendersPerSecond: round(renderRps, 1),
      ratioWithRenderInBaseline: round(pathRps / (1000 / (1000 / parseRps + 1000 / renderRps))),
      cpuPerRequestMs,
      extractorThreadsMs,
      loadAverage: readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' '),
      pathLatencyMs: { p50: round(median(path.latencies)), p95: round(pct(path.latencies, 95)) },
      sequential: {
        gatewayMedianMs: round(median(gwLat)),
        natsDirectMedianMs: round(median(natsLat)),
        fetchAndParseMedianMs: round(median(directLat)),
        parseMedianMs: round(parseLat),
        addedByGatewayAndNatsMedianMs: round(median(gwLat) - median(directLat)),
        addedByGatewayMedianMs: round(median(gwLat) - median(natsLat)),
      },
      instantResponder: {
        gatewayAndNatsMedianMs: round(median(stubGw)),
        gatewayAndNatsP95Ms: round(pct(stubGw, 95)),
        natsOnlyMedianMs: round(median(stubNats)),
      },
    }),
  );
} finally {
  await stopAll();
}
