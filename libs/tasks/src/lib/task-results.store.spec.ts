import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { Job, Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { QUEUES, STREAMS, SUBJECTS, type QueueName, type ScrapeResult, type TaskFinishedEvent } from '@trawl/contracts';
import { connectNats, ensureOutcomeStream, MessagingClient } from '@trawl/messaging';
import { standaloneRedisTopology } from '@trawl/redis';
import { eventually, serveSubject, startNats, startRedis, type TestServer } from '@trawl/testing';
import { DEFAULT_OUTCOME_PUBLISHER_OPTIONS, OutcomePublisher } from './outcome.publisher.js';
import { newJobId } from './task-job-id.util.js';
import { TaskProcessors } from './task-processors.service.js';
import { TaskQueues } from './task-queues.service.js';
import { isResultApart, RESULT_APART_MIN_BYTES, RESULT_FIELD, resultKeepingBackend } from './task-results.store.js';
import { jobOptions } from './task-submitter.service.js';
import { TaskWorkers } from './task-workers.service.js';

const CONCURRENCY = Object.fromEntries(Object.values(QUEUES).map((q) => [q, 2])) as Record<QueueName, number>;

/** A scrape result whose markdown is `bytes` long (a real page's is about 40 KB). */
function resultOf(url: string, bytes: number): ScrapeResult {
  return {
    sourceURL: url,
    taskId: 'stand-in',
    edgeId: 'stand-in',
    status: 200,
    rawStatus: 200,
    markdown: `# ${url}\n${'x'.repeat(bytes)}`,
    metadata: { title: 'ok', url, engine: 'http', contentType: 'text/html' },
  };
}

describe('results kept apart from BullMQ (real Redis and NATS JetStream)', () => {
  let redis: TestServer;
  let nats: TestServer;
  let nc: NatsConnection;
  let queues: TaskQueues;
  let admin: Redis;
  let outcomes: OutcomePublisher;
  let workers: TaskWorkers;
  const sizes = new Map<string, number>();

  beforeAll(async () => {
    redis = await startRedis();
    nats = await startNats();
    nc = await connectNats([nats.url], 'task-results-spec');
    await ensureOutcomeStream(await jetstreamManager(nc), { duplicateWindowMs: 60_000, maxAgeMs: 3_600_000 });
    // The stand-in extractor answers each URL with a result of the size the test chose for it.
    serveSubject(nc, SUBJECTS.scrapePage, (data) => {
      const { url } = data as { url: string };
      return resultOf(url, sizes.get(url) ?? 10);
    });
    await nc.flush();
    queues = new TaskQueues({ topology: standaloneRedisTopology(redis.url) });
    admin = new Redis(redis.url);
    outcomes = new OutcomePublisher(jetstream(nc), queues, () => 1024 * 1024, DEFAULT_OUTCOME_PUBLISHER_OPTIONS);
    workers = new TaskWorkers(
      queues,
      new TaskProcessors(new MessagingClient(nc), { scrapeFormats: ['markdown'] }),
      outcomes,
      {
        concurrency: CONCURRENCY,
        lockDurationMs: 5000,
        stalledIntervalMs: 5000,
        maxStalledCount: 1,
        watchIntervalMs: 0,
      },
    );
    workers.start();
  }, 60_000);

  afterAll(async () => {
    await workers?.close();
    await outcomes?.close();
    await queues?.close();
    admin?.disconnect();
    await nc?.close();
    await nats?.stop();
    await redis?.stop();
  });

  /** Runs one scrape task whose result's markdown is `bytes` long; resolves with its id once its outcome is stored. */
  async function scrapeTask(bytes: number): Promise<{ id: string; outcome: TaskFinishedEvent }> {
    const id = newJobId(QUEUES.scrape);
    const url = `https://site.test/${id}`;
    sizes.set(url, bytes);
    await queues.addAllOrNothing(QUEUES.scrape, [
      {
        name: 'scrape',
        data: { kind: 'url', url, timeout: 10_000, webhook: 'http://127.0.0.1:9/h', type: 'scrape' },
        opts: jobOptions(id, 1),
      },
    ]);
    const outcome = await eventually(async () => {
      const jsm = await jetstreamManager(nc);
      const m = await jsm.streams
        .getMessage(STREAMS.taskOutcomes.name, { last_by_subj: SUBJECTS.taskFinished })
        .catch(() => null);
      const event = m?.json<TaskFinishedEvent>();
      return event?.task.taskId === id ? event : undefined;
    });
    return { id, outcome };
  }

  /** The `completed` entry of job `id` in its queue's event stream, as field → value. */
  async function completedEvent(id: string): Promise<Record<string, string>> {
    const entries = await admin.xrange(queues.queue(QUEUES.scrape).keys.events, '-', '+');
    const fields = entries
      .map(([, f]) => Object.fromEntries(f.flatMap((v, i) => (i % 2 === 0 ? [[v, f[i + 1]]] : []))))
      .find((f: Record<string, string>) => f.event === 'completed' && f.jobId === id);
    if (!fields) throw new Error(`no completed event of ${id}`);
    return fields as Record<string, string>;
  }

  it('keeps a large result out of the completed event, and lookup and the outcome still carry all of it', async () => {
    const bytes = 40_000;
    const { id, outcome } = await scrapeTask(bytes);
    const expected = resultOf(`https://site.test/${id}`, bytes);
    expect(outcome.task.status).toBe('completed');
    expect(outcome.task.data).toEqual(expected);
    expect((await queues.getJob(id))?.returnvalue).toEqual(expected);
    const event = await completedEvent(id);
    expect(event.returnvalue.length).toBeLessThan(100);
    const hash = queues.queue(QUEUES.scrape).toKey(id);
    expect(JSON.parse((await admin.hget(hash, RESULT_FIELD)) ?? 'null')).toEqual(expected);
    expect(isResultApart(JSON.parse((await admin.hget(hash, 'returnvalue')) ?? 'null'))).toBe(true);
  });

  it('leaves a small result to BullMQ as before (in the job and its completed event, no field of its own)', async () => {
    const { id, outcome } = await scrapeTask(10);
    const expected = resultOf(`https://site.test/${id}`, 10);
    expect(outcome.task.data).toEqual(expected);
    expect((await queues.getJob(id))?.returnvalue).toEqual(expected);
    expect(JSON.parse((await completedEvent(id)).returnvalue)).toEqual(expected);
    expect(await admin.hexists(queues.queue(QUEUES.scrape).toKey(id), RESULT_FIELD)).toBe(0);
  });

  it('puts a kept-apart result back wherever a job is read from Redis (readJob: lookup, the outcome sweep)', async () => {
    const bytes = RESULT_APART_MIN_BYTES * 2;
    const { id } = await scrapeTask(bytes);
    const queue = queues.queue(QUEUES.scrape);
    // BullMQ's own read sees the marker; Trawl's read sees the result.
    expect(isResultApart((await Job.fromId(queue, id))?.returnvalue)).toBe(true);
    const job = await queues.readJob(QUEUES.scrape, id);
    expect(job?.returnvalue).toEqual(resultOf(`https://site.test/${id}`, bytes));
  });

  it("writes nothing when BullMQ refuses the completion (the lock is no longer the attempt's)", async () => {
    // A queue of its own (TaskWorkers runs every Trawl queue), on the result-keeping backend; its one job loses its
    // lock while it runs, as when its worker stalled and another took it.
    const connection = queues.workerConnection('spec-lost-lock');
    const queue = new Queue(`spec-lost-lock-${Date.now()}`, { connection, prefix: 'spec' });
    const errors: string[] = [];
    const worker = new Worker(
      queue.name,
      async (job: Job) => {
        await admin.del(`${queue.toKey(String(job.id))}:lock`);
        return resultOf('https://site.test/lost', 10_000);
      },
      { connection, prefix: 'spec' },
      resultKeepingBackend,
    );
    worker.on('error', (e) => errors.push(String(e)));
    worker.on('failed', (_job, e) => errors.push(String(e)));
    try {
      const job = await queue.add('lost', { kind: 'url' });
      await eventually(() => errors.length > 0);
      expect(await admin.hexists(queue.toKey(String(job.id)), RESULT_FIELD)).toBe(0);
      expect(await queue.getJobState(String(job.id))).not.toBe('completed');
    } finally {
      await worker.close();
      await queue.close();
      connection.disconnect();
    }
  });
});
