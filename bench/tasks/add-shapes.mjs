#!/usr/bin/env node
// How 10,000 URL jobs get into BullMQ, shape against shape, on a private redis-server (rounds alternate, queues
// emptied between rounds): `Queue.addBulk` (BullMQ 6: a plain pipeline, not a transaction) and
// `FlowProducer.addBulk` of childless flows (one MULTI: all jobs or none), and BullMQ's own per-job insert
// (`queue.backend.addJobToTransaction`) on one MULTI of our own, one script call per job (`ownMulti`) or batched
// as `TaskQueues.addAllOrNothing` sends them (`batchedMulti`, ADR 0018; needs a build: `npm run build`). Same job data
// and options as the task-service's URL batch. Prints one JSON line: median ms and Redis CPU ms per shape.
//   node bench/tasks/add-shapes.mjs [--jobs 10000] [--rounds 7]
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { FlowProducer, Job, Queue } from 'bullmq';
import { Redis } from 'ioredis';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const batches = await import(join(root, 'dist/libs/tasks/src/lib/task-insert-batches.builder.js'));

const { values } = parseArgs({
  options: { jobs: { type: 'string', default: '10000' }, rounds: { type: 'string', default: '7' } },
});
const N = Number(values.jobs);
const ROUNDS = Number(values.rounds);
const port = await new Promise((ok) => {
  const s = createServer().listen(0, '127.0.0.1', () => {
    const { port } = s.address();
    s.close(() => ok(port));
  });
});
const dir = mkdtempSync(join(tmpdir(), 'trawl-add-shapes-'));
const redis = spawn(
  'redis-server',
  ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
  { stdio: 'ignore' },
);
try {
  for (let i = 0; ; i++) {
    const up = await new Promise((ok) => {
      const c = connect(port, '127.0.0.1', () => (c.destroy(), ok(true)));
      c.on('error', () => ok(false));
    });
    if (up) break;
    if (i > 100) throw new Error('redis did not start');
    await new Promise((r) => setTimeout(r, 50));
  }
  const connection = new Redis(port, '127.0.0.1', { maxRetriesPerRequest: 3 });
  const queue = new Queue('scrape', { connection });
  const flows = new FlowProducer({ connection });
  const opts = () => ({
    attempts: 5,
    removeOnComplete: 300000,
    removeOnFail: 100000,
    backoff: { type: 'fixed', delay: 1000 },
    jobId: `scrape_${randomUUID()}`,
  });
  const data = (i) => ({
    kind: 'url',
    url: `http://127.0.0.1:8/p/${i}?ref=bench`,
    timeout: 25000,
    webhook: 'http://127.0.0.1:9/hook',
    type: 'scrape',
    apiKeyId: '0123456789abcdef',
  });
  const shapes = {
    queueAddBulk: () =>
      queue.addBulk(Array.from({ length: N }, (_, i) => ({ name: 'scrape', data: data(i), opts: opts() }))),
    ownMulti: async () => {
      const client = await queue.backend.client;
      const multi = client.multi();
      const jobs = Array.from({ length: N }, (_, i) => {
        const o = opts();
        return new Job(queue, 'scrape', data(i), o, o.jobId);
      });
      for (const job of jobs) await queue.backend.addJobToTransaction(multi, job.asJSON(), job.id);
      for (const [err] of await multi.exec()) if (err) throw err;
      return jobs;
    },
    batchedMulti: async () => {
      const client = await queue.backend.client;
      const jobs = Array.from({ length: N }, (_, i) => {
        const o = opts();
        return new Job(queue, 'scrape', data(i), o, o.jobId);
      });
      const recorder = batches.recordInserts();
      await Promise.all(
        jobs.map((job) => queue.backend.addJobToTransaction(recorder.transaction, job.asJSON(), job.id)),
      );
      batches.defineBatchedScripts(client, recorder.inserts);
      const multi = client.multi();
      const calls = batches.queueInserts(client, multi, recorder.inserts, 500);
      for (const [err] of batches.jobReplies(calls, await multi.exec())) if (err) throw err;
      return jobs;
    },
    flowAddBulk: () =>
      flows.addBulk(
        Array.from({ length: N }, (_, i) => ({ name: 'scrape', queueName: 'scrape', data: data(i), opts: opts() })),
      ),
  };
  const ms = Object.fromEntries(Object.keys(shapes).map((k) => [k, []]));
  const redisCpu = Object.fromEntries(Object.keys(shapes).map((k) => [k, []]));
  /** utime + stime of redis-server, ms (10 ms resolution). */
  const redisCpuMs = () => {
    const f = readFileSync(`/proc/${redis.pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(f[11]) + Number(f[12])) * 10;
  };
  for (let r = 0; r < ROUNDS + 1; r++) {
    for (const [k, fn] of Object.entries(shapes)) {
      await connection.flushall();
      const c = redisCpuMs();
      const t = performance.now();
      const jobs = await fn();
      if (jobs.length !== N) throw new Error(`${k}: ${jobs.length} jobs`);
      if (r > 0) {
        // round 0 warms up
        ms[k].push(performance.now() - t);
        redisCpu[k].push(redisCpuMs() - c);
      }
      if ((await queue.getWaitingCount()) !== N) throw new Error(`${k}: not all jobs waiting`);
    }
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(
    JSON.stringify({
      bench: 'add-shapes',
      jobs: N,
      rounds: ROUNDS,
      medianMs: Object.fromEntries(Object.entries(ms).map(([k, v]) => [k, Math.round(median(v))])),
      redisCpuMs: Object.fromEntries(Object.entries(redisCpu).map(([k, v]) => [k, median(v)])),
      load: loadavg()[0].toFixed(2),
    }),
  );
  await flows.close();
  await queue.close();
  connection.disconnect();
} finally {
  redis.kill('SIGTERM');
  await new Promise((r) => redis.once('exit', r));
  rmSync(dir, { recursive: true, force: true });
}
