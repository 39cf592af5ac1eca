// Bench (b): POST /extract/search through the gateway (process), NATS and extractor-search (process) against the
// upstream simulator (process), versus the same parse in one process with no network. Loopback only; bounded count
// and concurrency. Reads dist/ (npm run build). Prints one JSON line.
//
//   node bench/parse-and-path/path.mjs [--requests 400] [--concurrency 8] [--latency-requests 200] [--queries 50]
import { spawn } from 'node:child_process';
import { createServer, connect } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const { parseSearchPage, buildSearchUrl } = await import(join(root, 'dist/libs/parsers/src/index.js'));
const { renderSearchPage } = await import(join(root, 'dist/tools/upstream-simulator/src/pages/search.page.js'));
const { connectNats, MessagingClient } = await import(join(root, 'dist/libs/messaging/src/index.js'));
const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '400' },
    concurrency: { type: 'string', default: '8' },
    'latency-requests': { type: 'string', default: '200' },
    queries: { type: 'string', default: '50' },
  },
});
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
  const sim = start('simulator', process.execPath, [join(root, 'dist/tools/upstream-simulator/src/main.js')], {
    SIMULATOR_PORT: String(simPort),
  });
  await Promise.all([waitPort(natsPort, nats, 'nats-server'), waitPort(simPort, sim, 'simulator')]);
  const natsUrl = `nats://127.0.0.1:${natsPort}`;
  const simUrl = `http://127.0.0.1:${simPort}`;
  const extractor = start(
    'extractor-search',
    process.execPath,
    [join(root, 'dist/apps/extractor-search/src/main.js')],
    {
      NATS_URL: natsUrl,
      SEARCH_BASE_URL: simUrl,
      SSRF_ALLOW_HOSTS: '127.0.0.1',
      METRICS_PORT: '0',
      LOG_LEVEL: 'warn',
    },
  );
  const gw = start('gateway', process.execPath, [join(root, 'dist/apps/gateway/src/main.js')], {
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
  const path = await load(REQUESTS, CONCURRENCY, viaGateway);
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
    extractor.kill('SIGKILL');
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
      requests: REQUESTS,
      concurrency: CONCURRENCY,
      queries: QUERIES.length,
      avgPageKB: round(pages.reduce((s, p) => s + p.length, 0) / pages.length / 1024, 1),
      pathRequestsPerSecond: round(pathRps, 1),
      inProcessParsesPerSecond: round(parseRps, 1),
      ratio: round(pathRps / parseRps),
      simulatorRendersPerSecond: round(renderRps, 1),
      ratioWithRenderInBaseline: round(pathRps / (1000 / (1000 / parseRps + 1000 / renderRps))),
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
