// What the gateway + NATS add to POST /extract/search when the extractor answers at once (an instant responder in
// this process serves `extract.search.v1` with a real parsed result), and what one request costs the gateway in CPU.
// Two builds can be compared side by side: `--dist-b` starts a second gateway from another build on the same NATS,
// and the requests alternate A, B, A, B ... so both see the same machine load. Loopback only; one request at a time.
//
//   node bench/parse-and-path/gateway-overhead.mjs [--dist dist] [--dist-b <other build>] [--requests 2000]
//        [--profile <dir>]   (writes each gateway's CPU profile, `gateway-a.cpuprofile` / `gateway-b.cpuprofile`)
// Prints one JSON line per gateway: median / p95 latency (HTTP client included) and gateway CPU µs per request.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const { values } = parseArgs({
  options: {
    dist: { type: 'string', default: 'dist' },
    'dist-b': { type: 'string' },
    requests: { type: 'string', default: '2000' },
    profile: { type: 'string' },
  },
});
const REQUESTS = Number(values.requests);
const KEY = 'bench-key';
const dists = [resolve(root, values.dist), ...(values['dist-b'] ? [resolve(root, values['dist-b'])] : [])];
const { parseSearchPage } = await import(join(dists[0], 'libs/parsers/src/index.js'));
const { renderSearchPage } = await import(join(dists[0], 'tools/upstream-simulator/src/pages/search.page.js'));
const { connectNats } = await import(join(dists[0], 'libs/messaging/src/index.js'));

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

  // The instant responder: a real parsed result page, answered at once in Nest's reply frame.
  const result = parseSearchPage(renderSearchPage({ q: 'bench query', num: 10 }), { pageOffset: 0 });
  const nc = await connectNats([natsUrl], 'bench-responder');
  const decoder = new TextDecoder();
  nc.subscribe('extract.search.v1', {
    queue: 'extractor-search',
    callback: (_e, m) =>
      m.respond(JSON.stringify({ id: JSON.parse(decoder.decode(m.data)).id, response: result, isDisposed: true })),
  });
  await nc.flush();

  const gateways = [];
  for (const [i, dist] of dists.entries()) {
    const name = `gateway-${'ab'[i]}`;
    const port = await freePort();
    const prof = values.profile
      ? ['--cpu-prof', '--cpu-prof-dir', resolve(values.profile), '--cpu-prof-name', `${name}.cpuprofile`]
      : [];
    const proc = start(process.execPath, [...prof, join(dist, 'apps/gateway/src/main.js')], {
      NATS_URL: natsUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      API_KEYS: KEY,
      API_KEY_DEFAULT_RATE: '100000000/1s',
      API_KEY_DEFAULT_CONCURRENCY: '10000',
      LOG_LEVEL: 'warn',
    });
    await waitPort(port, proc, name);
    gateways.push({
      name,
      dist,
      proc,
      url: `http://127.0.0.1:${port}/api/openapi/v1/extract/search`,
      lat: [],
      user: 0,
      sys: 0,
    });
  }
  const call = async (g, i) => {
    const res = await fetch(g.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': KEY },
      body: JSON.stringify({ q: `bench query number ${i % 50}`, timeout: 20000 }),
    });
    const body = await res.json();
    if (res.status !== 200 || body.data.results.length === 0)
      throw new Error(`HTTP ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
  };
  // Warm-up (JIT) of each gateway.
  for (const g of gateways) for (let i = 0; i < 300; i++) await call(g, i);

  const load = [loadavg()[0]];
  // Alternating blocks of 50 so the CPU ticks of each gateway are read around its own requests only.
  for (let block = 0; block < REQUESTS / 50; block++) {
    for (const g of gateways) {
      const t0 = cpuTicks(g.proc.pid);
      for (let i = 0; i < 50; i++) {
        const t = performance.now();
        await call(g, i);
        g.lat.push(performance.now() - t);
      }
      const t1 = cpuTicks(g.proc.pid);
      g.user += t1[0] - t0[0];
      g.sys += t1[1] - t0[1];
    }
  }
  load.push(loadavg()[0]);
  await nc.close();
  for (const g of gateways) {
    console.log(
      JSON.stringify({
        bench: 'gateway-overhead',
        gateway: g.name,
        dist: g.dist.replace(`${root}/`, ''),
        requests: g.lat.length,
        medianMs: round(median(g.lat)),
        p95Ms: round(pct(g.lat, 95)),
        gatewayCpuUsPerRequest: Math.round(((g.user + g.sys) * 10_000) / g.lat.length),
        ofWhichSystemUs: Math.round((g.sys * 10_000) / g.lat.length),
        load: load.map((l) => l.toFixed(2)).join('→'),
      }),
    );
  }
} finally {
  await stopAll();
}
