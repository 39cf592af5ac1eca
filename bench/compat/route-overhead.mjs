// What Firecrawl's compatible route adds to the native path for the same scrape (issue 22, "must show" 4): one
// gateway, an instant responder in this process serving `scrape.page.v1` with a fixed result (markdown and html of a
// 40 KB page), and the same scrape asked alternately as POST /api/openapi/v1/scrape (x-api-key, the envelope) and
// POST /v2/scrape (Bearer, Firecrawl's document), in blocks of 50 so both see the same machine load. Loopback only;
// one request at a time. The difference is the translation (tables, html decoding, metadata) and nothing else: both
// routes send the same NATS request.
//
//   node bench/compat/route-overhead.mjs [--dist dist] [--requests 4000]
// Prints one JSON line per route (median / p95 latency with the HTTP client, gateway CPU µs a request) and one with
// the added cost: the difference of the medians and the median of the paired differences.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const { values } = parseArgs({
  options: { dist: { type: 'string', default: 'dist' }, requests: { type: 'string', default: '4000' } },
});
const REQUESTS = Number(values.requests);
const KEY = 'bench-key';
const dist = resolve(root, values.dist);
const { connectNats } = await import(join(dist, 'libs/messaging/src/index.js'));
const { encodeScrapeHtml } = await import(join(dist, 'libs/contracts/src/index.js'));

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
function start(cmd, args, env) {
  const p = spawn(cmd, args, { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  p.out = '';
  p.stdout.on('data', (d) => (p.out = (p.out + d).slice(-4000)));
  p.stderr.on('data', (d) => (p.out = (p.out + d).slice(-4000)));
  procs.push(p);
  return p;
}
const stopAll = () =>
  Promise.all(
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
/** [utime, stime] of a process, in clock ticks (100 per second). */
const cpuTicks = (pid) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return [Number(f[11]), Number(f[12])];
};
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const round = (n, d = 3) => Math.round(n * 10 ** d) / 10 ** d;

try {
  const natsPort = await freePort();
  const nats = start('nats-server', ['-a', '127.0.0.1', '-p', String(natsPort)], {});
  await waitPort(natsPort, nats, 'nats-server');
  const natsUrl = `nats://127.0.0.1:${natsPort}`;

  // The instant responder: a fixed scrape result of a 40 KB page, answered at once in Nest's reply frame.
  const paragraph = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt. ';
  const markup = `<html><head><title>Bench page</title></head><body><h1>Bench</h1>${`<p>${paragraph.repeat(4)}</p>`.repeat(100)}</body></html>`;
  const markdown = `# Bench\n\n${`${paragraph.repeat(4)}\n\n`.repeat(100)}`;
  const decoder = new TextDecoder();
  const nc = await connectNats([natsUrl], 'bench-responder');
  nc.subscribe('scrape.page.v1', {
    queue: 'extractor-scrape',
    callback: (_e, m) => {
      const frame = JSON.parse(decoder.decode(m.data));
      const result = {
        sourceURL: frame.data.url,
        taskId: 't',
        edgeId: 'bench',
        status: 200,
        rawStatus: 200,
        ...(frame.data.formats.includes('markdown') ? { markdown } : {}),
        ...(frame.data.formats.includes('html') ? { html: encodeScrapeHtml(markup) } : {}),
        metadata: { title: 'Bench page', url: frame.data.url, engine: 'http', contentType: 'text/html' },
      };
      m.respond(JSON.stringify({ id: frame.id, response: result, isDisposed: true }));
    },
  });
  await nc.flush();

  const port = await freePort();
  const proc = start(process.execPath, [join(dist, 'apps/gateway/src/main.js')], {
    NATS_URL: natsUrl,
    PORT: String(port),
    HOST: '127.0.0.1',
    API_KEYS: KEY,
    API_KEY_DEFAULT_RATE: '100000000/1s',
    API_KEY_DEFAULT_CONCURRENCY: '10000',
    LOG_LEVEL: 'warn',
  });
  await waitPort(port, proc, 'gateway');
  const routes = [
    {
      name: 'native POST /api/openapi/v1/scrape',
      url: `http://127.0.0.1:${port}/api/openapi/v1/scrape`,
      headers: { 'x-api-key': KEY },
      ok: (b) => typeof b.data.markdown === 'string' && typeof b.data.html === 'string',
      lat: [],
      ticks: 0,
    },
    {
      name: 'Firecrawl POST /v2/scrape',
      url: `http://127.0.0.1:${port}/v2/scrape`,
      headers: { authorization: `Bearer ${KEY}` },
      ok: (b) => b.success === true && typeof b.data.markdown === 'string' && typeof b.data.html === 'string',
      lat: [],
      ticks: 0,
    },
  ];
  const call = async (r, i) => {
    const res = await fetch(r.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...r.headers },
      body: JSON.stringify({ url: `http://127.0.0.1:9/page-${i % 50}`, formats: ['markdown', 'html'] }),
    });
    const body = await res.json();
    if (res.status !== 200 || !r.ok(body)) throw new Error(`HTTP ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
  };
  for (const r of routes) for (let i = 0; i < 300; i++) await call(r, i);

  const load = [loadavg()[0]];
  for (let block = 0; block < REQUESTS / 50; block++) {
    for (const r of routes) {
      const t0 = cpuTicks(proc.pid);
      for (let i = 0; i < 50; i++) {
        const t = performance.now();
        await call(r, i);
        r.lat.push(performance.now() - t);
      }
      const t1 = cpuTicks(proc.pid);
      r.ticks += t1[0] - t0[0] + (t1[1] - t0[1]);
    }
  }
  load.push(loadavg()[0]);
  await nc.close();
  for (const r of routes) {
    console.log(
      JSON.stringify({
        bench: 'compat-route-overhead',
        route: r.name,
        requests: r.lat.length,
        medianMs: round(median(r.lat)),
        p95Ms: round(pct(r.lat, 95)),
        gatewayCpuUsPerRequest: Math.round((r.ticks * 10_000) / r.lat.length),
      }),
    );
  }
  const [native, compat] = routes;
  console.log(
    JSON.stringify({
      bench: 'compat-route-overhead',
      addedMedianMs: round(median(compat.lat) - median(native.lat)),
      pairedDifferenceMedianMs: round(median(compat.lat.map((x, i) => x - native.lat[i]))),
      addedCpuUsPerRequest: Math.round(((compat.ticks - native.ticks) * 10_000) / compat.lat.length),
      load: load.map((l) => l.toFixed(2)).join('→'),
    }),
  );
} finally {
  await stopAll();
}
