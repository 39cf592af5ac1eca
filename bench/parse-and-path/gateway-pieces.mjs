// Micro-benchmarks of per-request pieces of the gateway path, each against its replacement (same process, rounds
// alternating): helmet's middleware built per request (@fastify/helmet) vs headers computed once; a nats.js request
// with and without async traces, with and without an empty header block (an instant responder on a local
// nats-server, in this process: its CPU is counted too). Figures are CPU µs per call. Reads dist/ for the NATS helpers. Prints one JSON line.
//   node bench/parse-and-path/gateway-pieces.mjs [--rounds 5]
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { parseArgs } from 'node:util';
import helmet from 'helmet';
import { connect } from '@nats-io/transport-node';
import { headers as natsHeaders } from '@nats-io/nats-core';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '5' } } });
const ROUNDS = Number(values.rounds);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const round = (n) => Math.round(n * 100) / 100;

/** CPU µs of this process (user + system) per call of `fn` over `n` calls (awaited when it returns a promise). */
async function perCall(fn, n) {
  const c = process.cpuUsage();
  for (let i = 0; i < n; i++) {
    const r = fn(i);
    if (r && typeof r.then === 'function') await r;
  }
  const { user, system } = process.cpuUsage(c);
  return (user + system) / n;
}
async function compare(pairs, n) {
  const out = Object.fromEntries(Object.keys(pairs).map((k) => [k, []]));
  for (const fn of Object.values(pairs)) await perCall(fn, Math.ceil(n / 5)); // warm-up
  for (let r = 0; r < ROUNDS; r++) for (const [k, fn] of Object.entries(pairs)) out[k].push(await perCall(fn, n));
  return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, round(median(v))]));
}

// Helmet: what @fastify/helmet does per request (build the middleware, run it) vs setting precomputed headers.
const options = { frameguard: { action: 'deny' } };
const sink = () => {
  const h = {};
  return { setHeader: (k, v) => (h[k] = v), removeHeader: () => undefined, h };
};
const fixed = {};
helmet(options)({}, { setHeader: (k, v) => (fixed[k.toLowerCase()] = String(v)), removeHeader() {} }, () => undefined);
const helmetUs = await compare(
  {
    perRequestMiddleware: () => helmet(options)({}, sink(), () => undefined),
    precomputedHeaders: () => {
      const res = sink();
      for (const k in fixed) res.setHeader(k, fixed[k]);
    },
  },
  20_000,
);

// NATS request/reply against an instant responder.
const port = await new Promise((ok) => {
  const s = createServer().listen(0, '127.0.0.1', () => {
    const { port } = s.address();
    s.close(() => ok(port));
  });
});
const server = spawn('nats-server', ['-a', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
let natsUs;
try {
  const servers = `nats://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      (await connect({ servers })).close();
      break;
    } catch (e) {
      if (i > 100) throw e;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  const responder = await connect({ servers });
  const reply = new TextEncoder().encode(JSON.stringify({ id: 'x', response: { ok: true }, isDisposed: true }));
  responder.subscribe('bench.echo', { callback: (_e, m) => m.respond(reply) });
  await responder.flush();
  const traced = await connect({ servers });
  const untraced = await connect({ servers, noAsyncTraces: true });
  const payload = new TextEncoder().encode(
    JSON.stringify({ pattern: 'bench.echo', data: { q: 'coffee', timeout: 20000 }, id: 'x' }),
  );
  natsUs = await compare(
    {
      asyncTracesEmptyHeaders: () => traced.request('bench.echo', payload, { timeout: 20000, headers: natsHeaders() }),
      asyncTracesNoHeaders: () => traced.request('bench.echo', payload, { timeout: 20000 }),
      noAsyncTracesEmptyHeaders: () =>
        untraced.request('bench.echo', payload, { timeout: 20000, headers: natsHeaders() }),
      noAsyncTracesNoHeaders: () => untraced.request('bench.echo', payload, { timeout: 20000 }),
    },
    2_000,
  );
  await Promise.all([traced.close(), untraced.close(), responder.close()]);
} finally {
  server.kill('SIGTERM');
}
console.log(
  JSON.stringify({ bench: 'gateway-pieces', rounds: ROUNDS, helmetCpuUs: helmetUs, natsRequestCpuUs: natsUs }),
);
