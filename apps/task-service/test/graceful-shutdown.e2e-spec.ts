import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { Queue } from 'bullmq';
import { loadEnv, TaskServiceEnv } from '@trawl/config';
import { QUEUES, STREAMS, SUBJECTS, type ScrapeResult } from '@trawl/contracts';
import { queuePrefix } from '@trawl/tasks';
import { connectNats, MessagingClient } from '@trawl/messaging';
import { eventually, serveSubject, startNats, startRedis, type TestServer } from '@trawl/testing';
import { closeTaskServiceApp, createTaskServiceApp } from '../src/task-service-app.factory.js';

describe('task-service: stopping (SIGTERM) with a job in flight', () => {
  let redis: TestServer;
  let nats: TestServer;
  let nc: NatsConnection;
  const calls: string[] = [];
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (release = resolve));

  beforeAll(async () => {
    redis = await startRedis();
    nats = await startNats();
    nc = await connectNats([nats.url], 'graceful-shutdown-e2e');
    // The first page is held until the test releases it; later ones answer at once.
    serveSubject(nc, SUBJECTS.scrapePage, async (data) => {
      const { url } = data as { url: string };
      calls.push(url);
      if (calls.length === 1) await held;
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
  });

  afterAll(async () => {
    release();
    await nc?.close();
    await nats?.stop();
    await redis?.stop();
  });

  it('takes no new job during the NATS grace period, finishes the active one and publishes its outcome', async () => {
    const env = loadEnv(TaskServiceEnv, {
      NATS_URL: nats.url,
      REDIS_URL: redis.url,
      SSRF_ALLOW_HOSTS: '127.0.0.1',
      LOG_LEVEL: 'silent',
      TASK_CONCURRENCY_SCRAPE: '1',
      TASK_SHUTDOWN_GRACE_MS: '1500',
      INSTANCE_ID: 'stopping-replica',
    });
    const app = await createTaskServiceApp(env);
    await app.listen();
    const { jobs } = await new MessagingClient(nc).send(
      SUBJECTS.taskSubmit,
      {
        kind: 'url',
        request: {
          urls: ['https://site.test/1', 'https://site.test/2', 'https://site.test/3'],
          webhook: 'http://127.0.0.1:9/hook',
          type: 'scrape',
          timeout: 25000,
        },
      },
      { timeoutMs: 10_000 },
    );
    await eventually(() => calls.length === 1);

    const closed = closeTaskServiceApp(app);
    release();
    await closed;

    // Only the job that was active ran; the others wait for another replica.
    expect(calls).toEqual(['https://site.test/1']);
    const queue = new Queue(QUEUES.scrape, { connection: { url: redis.url }, prefix: queuePrefix(QUEUES.scrape) });
    try {
      expect(await queue.getJobState(jobs[0].id)).toBe('completed');
      expect((await queue.getJob(jobs[0].id))?.processedBy).toBe('stopping-replica');
      // Still queued: BullMQ calls a queued job with a priority (every task has one, for fair share) `prioritized`.
      expect(await queue.getJobState(jobs[1].id)).toBe('prioritized');
      expect(await queue.getJobState(jobs[2].id)).toBe('prioritized');
    } finally {
      await queue.close();
    }
    // Its outcome was published before the connections closed.
    const info = await (await jetstreamManager(nc)).streams.info(STREAMS.taskOutcomes.name);
    expect(info.state.messages).toBe(1);
  }, 30_000);
});
