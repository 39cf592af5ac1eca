import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { jetstream, jetstreamManager, type JetStreamClient } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { Worker, type Job } from 'bullmq';
import { QUEUES, STREAMS, type BatchWebhookEvent, type TaskFinishedEvent } from '@trawl/contracts';
import { connectNats, ensureOutcomeStream } from '@trawl/messaging';
import { startNats, startRedis, type TestServer } from '@trawl/testing';
import { standaloneRedisTopology } from '@trawl/redis';
import { batchEventId, BatchEventsPublisher, DEFAULT_BATCH_EVENTS_OPTIONS } from './batch-events.publisher.js';
import { BatchPagesStore } from './batch-pages.store.js';
import { DEFAULT_OUTCOME_PUBLISHER_OPTIONS, OutcomePublisher, outcomeEventId } from './outcome.publisher.js';
import type { TaskJobData } from './task-job-data.types.js';
import { jobOptions } from './task-submitter.service.js';
import { newJobId } from './task-job-id.util.js';
import { TaskQueues } from './task-queues.service.js';
import type { ReplicaAcks } from './replica-acks.service.js';

describe('OutcomePublisher (real Redis and NATS JetStream)', () => {
  let redis: TestServer;
  let nats: TestServer;
  let nc: NatsConnection;
  let queues: TaskQueues;
  let worker: Worker;
  let workerConnection: ReturnType<TaskQueues['workerConnection']>;

  beforeAll(async () => {
    redis = await startRedis();
    nats = await startNats();
    nc = await connectNats([nats.url], 'outcome-publisher-spec');
    await ensureOutcomeStream(await jetstreamManager(nc));
    queues = new TaskQueues({ topology: standaloneRedisTopology(redis.url) });
    worker = new Worker(QUEUES.retail, async (job: Job) => ({ title: `product ${job.id}` }), {
      connection: (workerConnection = queues.workerConnection('spec-worker')),
      prefix: queues.prefixOf(QUEUES.retail),
    });
  });

  afterAll(async () => {
    await worker?.close();
    workerConnection?.disconnect();
    await queues?.close();
    await nc?.close();
    await nats?.stop();
    await redis?.stop();
  });

  /** A retail URL task that a worker (without any publisher) has completed. */
  async function finishedJob(extra: Partial<TaskJobData> = {}): Promise<Job<TaskJobData>> {
    const data = {
      kind: 'url',
      url: 'https://shop.test/p/1',
      timeout: 1000,
      webhook: 'https://hooks.test/',
      type: 'retail',
      ...extra,
    } as TaskJobData;
    const id = newJobId(QUEUES.retail);
    await queues.queue(QUEUES.retail).add('retail', data, jobOptions(id));
    for (;;) {
      if ((await queues.queue(QUEUES.retail).getJobState(id)) === 'completed') {
        const job = await queues.getJob(id);
        if (job) return job;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  async function storedOutcomes<T extends { eventId: string } = TaskFinishedEvent>(eventId: string): Promise<T[]> {
    const jsm = await jetstreamManager(nc);
    const { state } = await jsm.streams.info(STREAMS.taskOutcomes.name);
    const found: T[] = [];
    for (let seq = state.first_seq; seq <= state.last_seq && state.messages > 0; seq++) {
      const m = await jsm.streams.getMessage(STREAMS.taskOutcomes.name, { seq }).catch(() => null);
      const event = m?.json<T>();
      if (event?.eventId === eventId) found.push(event);
    }
    return found;
  }

  /** A JetStream client whose first `failures` publishes fail, as while NATS is down. */
  function flakyJs(failures: number): JetStreamClient {
    const js = jetstream(nc);
    let left = failures;
    return new Proxy(js, {
      get(target, prop, receiver) {
        if (prop === 'publish') {
          return (...args: Parameters<JetStreamClient['publish']>) => {
            if (left-- > 0) return Promise.reject(new Error('NATS is down'));
            return target.publish(...args);
          };
        }
        return Reflect.get(target, prop, receiver) as unknown;
      },
    });
  }

  const fast = { ...DEFAULT_OUTCOME_PUBLISHER_OPTIONS, publishRetryDelayMs: 10, publishRideOutMs: 0, sweepGraceMs: 0 };

  it('publishes the outcome of a finished job once its publish gets through after failures', async () => {
    const job = await finishedJob();
    const publisher = new OutcomePublisher(flakyJs(3), queues, () => 1024 * 1024, fast);
    await publisher.jobSettled(QUEUES.retail, String(job.id));
    const [event, ...more] = await storedOutcomes(outcomeEventId(String(job.id), job.finishedOn ?? 0));
    expect(more).toHaveLength(0);
    expect(event).toMatchObject({
      event: 'task.completed',
      webhook: 'https://hooks.test/',
      task: { taskId: job.id, status: 'completed', data: { title: `product ${job.id}` } },
    });
  });

  it('publishes an end only once its replicas hold it: one a lost master took with it is never announced', async () => {
    const job = await finishedJob();
    const eventId = outcomeEventId(String(job.id), job.finishedOn ?? 0);
    const asked: unknown[][] = [];
    const acksAnswering = (held: boolean) =>
      ({
        required: async () => 1,
        confirmFinished: async (...args: unknown[]) => {
          asked.push(args);
          return held;
        },
      }) as unknown as ReplicaAcks;
    const errors: string[] = [];
    const options = { ...fast, onError: (m: string) => errors.push(m) };
    await new OutcomePublisher(jetstream(nc), queues, () => 1024 * 1024, {
      ...options,
      acks: acksAnswering(false),
    }).jobSettled(QUEUES.retail, String(job.id));
    expect(await storedOutcomes(eventId)).toHaveLength(0);
    expect(asked).toEqual([
      [queues.ackKey(QUEUES.retail), 1, queues.queue(QUEUES.retail).toKey(String(job.id)), job.finishedOn],
    ]);
    expect(errors).toEqual([`outcome ${eventId} not published`]);

    await new OutcomePublisher(jetstream(nc), queues, () => 1024 * 1024, {
      ...options,
      acks: acksAnswering(true),
    }).jobSettled(QUEUES.retail, String(job.id));
    expect(await storedOutcomes(eventId)).toHaveLength(1);
  });

  it('leaves an outcome it could not publish to the sweep, which publishes it; a second sweep stores nothing new', async () => {
    const job = await finishedJob();
    const down = new OutcomePublisher(flakyJs(100), queues, () => 1024 * 1024, { ...fast, publishAttempts: 2 });
    await down.jobSettled(QUEUES.retail, String(job.id));
    const eventId = outcomeEventId(String(job.id), job.finishedOn ?? 0);
    expect(await storedOutcomes(eventId)).toHaveLength(0);
    const up = new OutcomePublisher(jetstream(nc), queues, () => 1024 * 1024, fast);
    await up.sweep();
    await up.sweep();
    expect(await storedOutcomes(eventId)).toHaveLength(1);
  });

  it('stores a re-published outcome once (JetStream de-duplication by event id)', async () => {
    const job = await finishedJob();
    const publisher = new OutcomePublisher(jetstream(nc), queues, () => 1024 * 1024, fast);
    await publisher.jobSettled(QUEUES.retail, String(job.id));
    await publisher.jobSettled(QUEUES.retail, String(job.id));
    expect(await storedOutcomes(outcomeEventId(String(job.id), job.finishedOn ?? 0))).toHaveLength(1);
  });

  it('leaves out a result too large for one NATS message and says where to read it', async () => {
    const job = await finishedJob();
    const publisher = new OutcomePublisher(jetstream(nc), queues, () => 1100, fast);
    await publisher.jobSettled(QUEUES.retail, String(job.id));
    const [event] = await storedOutcomes(outcomeEventId(String(job.id), job.finishedOn ?? 0));
    expect(event.task).toMatchObject({ data: null, error: { code: 'PAYLOAD_TOO_LARGE' } });
    expect(event.task.error?.message).toContain(`/extractTask/${job.id}`);
  });

  it("publishes a batch page's batch_scrape.page instead of its outcome, and the batch's completed once", async () => {
    const batchId = '6b1f3a2e-6d1c-4c55-9a3e-2f0d8c1b7e90';
    const options = { batchId, format: 'firecrawl' as const, metadata: { run: 7 }, headers: { 'x-run': '7' } };
    const batchEvents = new BatchEventsPublisher(jetstream(nc), new BatchPagesStore(queues.connection, 60_000), {
      ...DEFAULT_BATCH_EVENTS_OPTIONS,
      retryDelayMs: 10,
      maxPayloadBytes: () => 1024 * 1024,
    });
    const publisher = new OutcomePublisher(jetstream(nc), queues, () => 1024 * 1024, { ...fast, batchEvents });
    const jobs = [
      await finishedJob({ url: 'https://shop.test/b/1', batchEvents: { options, total: 2 } }),
      await finishedJob({ url: 'https://shop.test/b/2', batchEvents: { options, total: 2 } }),
    ];
    const target = { webhook: 'https://hooks.test/', options, total: 2 };
    await batchEvents.started(target);
    await publisher.jobSettled(QUEUES.retail, String(jobs[0].id));
    expect(await storedOutcomes(batchEventId(target, 'completed'))).toHaveLength(0);
    await publisher.jobSettled(QUEUES.retail, String(jobs[1].id));
    // The last page's outcome again (a redelivery, a crash before its mark): nothing new is stored.
    await publisher.jobSettled(QUEUES.retail, String(jobs[1].id));
    await publisher.sweep();
    const [started, ...moreStarted] = await storedOutcomes<BatchWebhookEvent>(batchEventId(target, 'started'));
    expect(moreStarted).toHaveLength(0);
    expect(started).toMatchObject({ event: 'batch_scrape.started', batch: { id: batchId, total: 2 } });
    for (const job of jobs) {
      const [page, ...more] = await storedOutcomes<BatchWebhookEvent>(
        outcomeEventId(String(job.id), job.finishedOn ?? 0),
      );
      expect(more).toHaveLength(0);
      expect(page).toMatchObject({
        event: 'batch_scrape.page',
        webhook: 'https://hooks.test/',
        form: 'firecrawl',
        headers: { 'x-run': '7' },
        metadata: { run: 7 },
        batch: {
          id: batchId,
          data: [{ title: `product ${job.id}`, metadata: { sourceURL: (job.data as { url: string }).url } }],
        },
      });
    }
    const [completed, ...moreCompleted] = await storedOutcomes<BatchWebhookEvent>(batchEventId(target, 'completed'));
    expect(moreCompleted).toHaveLength(0);
    expect(completed).toMatchObject({ event: 'batch_scrape.completed', batch: { id: batchId, total: 2 } });
  });
});
