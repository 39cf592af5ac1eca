import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { jetstream, jetstreamManager, type JetStreamClient } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { Worker, type Job } from 'bullmq';
import { QUEUES, STREAMS, type TaskFinishedEvent } from '@trawl/contracts';
import { connectNats, ensureOutcomeStream, streamReplicas } from '@trawl/messaging';
import { standaloneRedisTopology } from '@trawl/redis';
import { startNatsCluster, startRedis, type TestNatsCluster, type TestServer } from '@trawl/testing';
import { DEFAULT_OUTCOME_PUBLISHER_OPTIONS, OutcomePublisher, outcomeEventId } from './outcome.publisher.js';
import type { TaskJobData } from './task-job-data.types.js';
import { jobOptions } from './task-submitter.service.js';
import { newJobId } from './task-job-id.util.js';
import { TaskQueues } from './task-queues.service.js';

jest.setTimeout(180_000);

describe('OutcomePublisher on a 3-node JetStream cluster (real Redis and nats-servers)', () => {
  let redis: TestServer;
  let cluster: TestNatsCluster;
  let nc: NatsConnection;
  let queues: TaskQueues;
  let worker: Worker;
  let workerConnection: ReturnType<TaskQueues['workerConnection']>;

  beforeAll(async () => {
    redis = await startRedis({ persist: false });
    cluster = await startNatsCluster({ nodes: 3 });
    nc = await connectNats(cluster.urls(), 'outcome-publisher-cluster-spec');
    const replicas = streamReplicas(nc, undefined);
    expect(replicas).toEqual({ count: 3, explicit: false });
    await ensureOutcomeStream(await jetstreamManager(nc), { ...DEFAULT_OUTCOME_STREAM, replicas });
    queues = new TaskQueues({ topology: standaloneRedisTopology(redis.url) });
    worker = new Worker(QUEUES.retail, async (job: Job) => ({ title: `product ${job.id}` }), {
      connection: (workerConnection = queues.workerConnection('cluster-spec-worker')),
      prefix: queues.prefixOf(QUEUES.retail),
      concurrency: 50,
    });
  });

  afterAll(async () => {
    await worker?.close();
    workerConnection?.disconnect();
    await queues?.close();
    await nc?.close();
    await cluster?.stop();
    await redis?.stop();
  });

  const DEFAULT_OUTCOME_STREAM = { duplicateWindowMs: 60 * 60 * 1000, maxAgeMs: 60 * 60 * 1000 };

  /** `count` retail URL tasks that a worker (without any publisher) has completed. */
  async function finishedJobs(count: number): Promise<Job<TaskJobData>[]> {
    const data: TaskJobData = {
      kind: 'url',
      url: 'https://shop.test/p/1',
      timeout: 1000,
      webhook: 'https://hooks.test/',
      type: 'retail',
    };
    const ids = Array.from({ length: count }, () => newJobId(QUEUES.retail));
    const queue = queues.queue(QUEUES.retail);
    await queue.addBulk(ids.map((id) => ({ name: 'retail', data, opts: jobOptions(id) })));
    const jobs: Job<TaskJobData>[] = [];
    for (const id of ids) {
      for (;;) {
        if ((await queue.getJobState(id)) === 'completed') {
          const job = await queues.getJob(id);
          if (job) {
            jobs.push(job);
            break;
          }
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    return jobs;
  }

  async function storedCounts(): Promise<Map<string, number>> {
    const jsm = await jetstreamManager(nc);
    const { state } = await jsm.streams.info(STREAMS.taskOutcomes.name);
    const counts = new Map<string, number>();
    for (let seq = state.first_seq; seq <= state.last_seq && state.messages > 0; seq++) {
      const m = await jsm.streams.getMessage(STREAMS.taskOutcomes.name, { seq }).catch(() => null);
      const id = m?.json<TaskFinishedEvent>().eventId;
      if (id) counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    return counts;
  }

  it('publishes the sweep outcomes concurrently, never more at once than sweepConcurrency', async () => {
    const jobs = await finishedJobs(40);
    let inFlight = 0;
    let most = 0;
    const js = jetstream(nc);
    const counting = new Proxy(js, {
      get(target, prop, receiver) {
        if (prop !== 'publish') return Reflect.get(target, prop, receiver) as unknown;
        return async (...args: Parameters<JetStreamClient['publish']>) => {
          inFlight++;
          most = Math.max(most, inFlight);
          try {
            await new Promise((r) => setTimeout(r, 20));
            return await target.publish(...args);
          } finally {
            inFlight--;
          }
        };
      },
    });
    const publisher = new OutcomePublisher(counting, queues, () => 1024 * 1024, {
      ...DEFAULT_OUTCOME_PUBLISHER_OPTIONS,
      sweepGraceMs: 0,
      sweepConcurrency: 8,
    });
    await publisher.sweep();
    expect(most).toBe(8);
    const stored = await storedCounts();
    for (const job of jobs) expect(stored.get(outcomeEventId(String(job.id), job.finishedOn ?? 0))).toBe(1);
  });

  it('stores every outcome once when the outcome stream leader is SIGKILLed mid-flow (publishes ride out the election)', async () => {
    const jobs = await finishedJobs(300);
    const errors: string[] = [];
    const publisher = new OutcomePublisher(jetstream(nc), queues, () => 1024 * 1024, {
      ...DEFAULT_OUTCOME_PUBLISHER_OPTIONS,
      publishTimeoutMs: 2000,
      publishRideOutMs: 60_000,
      onError: (message) => errors.push(message),
    });
    let published = 0;
    let killed: string | undefined;
    for (let i = 0; i < jobs.length; i += 20) {
      await Promise.all(jobs.slice(i, i + 20).map((job) => publisher.jobSettled(QUEUES.retail, String(job.id))));
      published += 20;
      if (published >= 100 && !killed) {
        killed = (await cluster.streamLeader(STREAMS.taskOutcomes.name)).name;
        await cluster.kill(killed);
      }
    }
    expect(errors).toEqual([]);
    const next = await cluster.streamLeader(STREAMS.taskOutcomes.name);
    expect(next.name).not.toBe(killed);
    const stored = await storedCounts();
    for (const job of jobs) expect(stored.get(outcomeEventId(String(job.id), job.finishedOn ?? 0))).toBe(1);
  });
});
