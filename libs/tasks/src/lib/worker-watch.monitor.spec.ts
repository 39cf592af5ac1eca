import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { Redis } from 'ioredis';
import { QUEUES, SUBJECTS, type QueueName, type ScrapeResult } from '@trawl/contracts';
import { connectNats, ensureOutcomeStream, MessagingClient } from '@trawl/messaging';
import { redisReconnectOnError, redisTopologyFromEnv, type RedisClient } from '@trawl/redis';
import {
  eventually,
  serveSubject,
  startNats,
  startRedisSentinelGroup,
  type RedisSentinelGroup,
  type TestServer,
} from '@trawl/testing';
import { OutcomePublisher, DEFAULT_OUTCOME_PUBLISHER_OPTIONS } from './outcome.publisher.js';
import { TaskProcessors } from './task-processors.service.js';
import { TaskQueues } from './task-queues.service.js';
import { jobOptions } from './task-submitter.service.js';
import { newJobId } from './task-job-id.util.js';
import { TaskWorkers } from './task-workers.service.js';
import type { WorkerHealth } from './worker-watch.monitor.js';

/**
 * Queues behind Sentinel whose first workers are pinned to the master of the moment by its address (as every worker
 * was when only REDIS_URL existed): after a failover that demotes that master, they sit on a replica for good.
 */
class PinnedWorkersQueues extends TaskQueues {
  pinnedTo: string | undefined;
  /** Set at the end: the pinned connections (and BullMQ's copies of them) stop reconnecting, so the test can exit. */
  released = false;

  override workerConnection(name: string): RedisClient {
    if (!this.pinnedTo) return super.workerConnection(name);
    const pinned = new Redis(this.pinnedTo, {
      connectionName: name,
      maxRetriesPerRequest: null,
      reconnectOnError: redisReconnectOnError,
      retryStrategy: () => (this.released ? null : 1000),
    });
    pinned.on('error', () => undefined);
    return pinned;
  }
}

const CONCURRENCY = Object.fromEntries(Object.values(QUEUES).map((q) => [q, 2])) as Record<QueueName, number>;

describe('TaskWorkers: a worker that no longer takes jobs is rebuilt (real Sentinel group, real NATS)', () => {
  let group: RedisSentinelGroup;
  let nats: TestServer;
  let nc: NatsConnection;
  let queues: PinnedWorkersQueues;
  let outcomes: OutcomePublisher;
  const scraped: string[] = [];

  beforeAll(async () => {
    group = await startRedisSentinelGroup({ replicas: 2, sentinels: 3 });
    nats = await startNats();
    nc = await connectNats([nats.url], 'worker-watch-spec');
    await ensureOutcomeStream(await jetstreamManager(nc), { duplicateWindowMs: 60_000, maxAgeMs: 3_600_000 });
    serveSubject(nc, SUBJECTS.scrapePage, (data) => {
      const { url } = data as { url: string };
      scraped.push(url);
      const result: ScrapeResult = {
        sourceURL: url,
        taskId: 'stand-in',
        edgeId: 'stand-in',
        status: 200,
        rawStatus: 200,
        markdown: '# ok',
        metadata: { title: 'ok', url, engine: 'http', contentType: 'text/html' },
      };
      return result;
    });
    await nc.flush();
    const topology = redisTopologyFromEnv(group.env);
    if (!topology) throw new Error('no topology');
    queues = new PinnedWorkersQueues({ topology });
    outcomes = new OutcomePublisher(jetstream(nc), queues, () => 1024 * 1024, DEFAULT_OUTCOME_PUBLISHER_OPTIONS);
  }, 90_000);

  afterAll(async () => {
    if (queues) queues.released = true;
    await outcomes?.close();
    await queues?.close();
    await nc?.close();
    await nats?.stop();
    await group?.stop();
  });

  async function scrapeJob(url: string): Promise<void> {
    const id = newJobId(QUEUES.scrape);
    await queues.addAllOrNothing(QUEUES.scrape, [
      {
        name: 'scrape',
        data: { kind: 'url', url, timeout: 10_000, webhook: 'http://127.0.0.1:9/h', type: 'scrape' },
        opts: jobOptions(id, 1),
      },
    ]);
  }

  async function run(watchIntervalMs: number, url: string) {
    const changes: [QueueName, WorkerHealth['state']][] = [];
    const master = await group.master();
    queues.pinnedTo = `redis://${master.address}`;
    const processors = new TaskProcessors(new MessagingClient(nc), { scrapeFormats: ['markdown'] });
    const workers = new TaskWorkers(queues, processors, outcomes, {
      concurrency: CONCURRENCY,
      lockDurationMs: 5000,
      stalledIntervalMs: 5000,
      maxStalledCount: 1,
      watchIntervalMs,
      onWorkerChange: (queue, health) => changes.push([queue, health.state]),
    });
    workers.start();
    queues.pinnedTo = undefined;
    // The workers wait on an empty queue; then the master is demoted (it stays up, as a replica of the new one).
    await new Promise((r) => setTimeout(r, 1500));
    const sentinel = new Redis(group.sentinels[0].port, '127.0.0.1');
    const old = new Redis(master.port, '127.0.0.1');
    try {
      // (A failover still settling answers INPROG: asked again.)
      await eventually(() => sentinel.call('SENTINEL', 'FAILOVER', group.name).catch(() => undefined), 30_000, 250);
      await eventually(async () => (await group.master()).address !== master.address, 30_000, 100);
      // The old master now serves as a replica, and the queues' connection writes to the new one.
      await eventually(async () => ((await old.call('ROLE')) as string[])[0] === 'slave', 30_000, 100);
      await eventually(async () => ((await queues.connection.call('ROLE')) as string[])[0] === 'master', 30_000, 100);
    } finally {
      sentinel.disconnect();
      old.disconnect();
    }
    await eventually(
      () =>
        scrapeJob(url)
          .then(() => true)
          .catch(() => false),
      30_000,
      200,
    );
    const taken = await eventually(() => scraped.includes(url), 15_000, 100).then(
      () => true,
      () => false,
    );
    const states = workers.states();
    await Promise.race([workers.close(), new Promise((r) => setTimeout(r, 10_000))]);
    return { taken, changes, states };
  }

  it('with the watch, they are found on the demoted master, rebuilt on the new one, and the job is taken', async () => {
    const { taken, changes, states } = await run(1000, 'https://site.test/watched');
    expect(taken).toBe(true);
    expect(changes).toContainEqual([QUEUES.scrape, 'rebuilding']);
    expect(changes).toContainEqual([QUEUES.scrape, 'taking-jobs']);
    expect(states[QUEUES.scrape]?.state).toBe('taking-jobs');
  }, 120_000);

  // The control: the same failover without the watch (run last: its stuck workers must not be around for the other).
  it('without the watch, workers pinned to a demoted master take no job', async () => {
    const { taken } = await run(0, 'https://site.test/unwatched');
    expect(taken).toBe(false);
  }, 120_000);
});
