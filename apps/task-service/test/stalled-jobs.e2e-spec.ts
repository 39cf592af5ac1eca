import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestMicroservice } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/nats-core';
import { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { loadEnv, TaskServiceEnv } from '@trawl/config';
import { QUEUES, SUBJECTS, type ScrapeResult } from '@trawl/contracts';
import { queuePrefix } from '@trawl/tasks';
import { connectNats, MessagingClient } from '@trawl/messaging';
import { TrawlMetrics } from '@trawl/telemetry';
import { eventually, serveSubject, startNats, startRedis, type TestServer } from '@trawl/testing';
import { createTaskServiceApp } from '../src/task-service-app.factory.js';

describe('task-service: a job held by a worker that died', () => {
  let redis: TestServer;
  let nats: TestServer;
  let nc: NatsConnection;
  let client: MessagingClient;
  const apps: INestMicroservice[] = [];

  beforeAll(async () => {
    redis = await startRedis();
    nats = await startNats();
    nc = await connectNats([nats.url], 'stalled-e2e');
    client = new MessagingClient(nc);
    serveSubject(nc, SUBJECTS.scrapePage, (data) => {
      const { url } = data as { url: string };
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
    for (const app of apps) await app.close();
    await nc?.close();
    await nats?.stop();
    await redis?.stop();
  });

  async function startApp(extra: Record<string, string>, metrics?: TrawlMetrics): Promise<void> {
    const env = loadEnv(TaskServiceEnv, {
      NATS_URL: nats.url,
      REDIS_URL: redis.url,
      SSRF_ALLOW_HOSTS: '127.0.0.1',
      LOG_LEVEL: 'silent',
      TASK_SHUTDOWN_GRACE_MS: '100',
      TASK_STALLED_INTERVAL_MS: '1000',
      ...extra,
    });
    const app = await createTaskServiceApp(env, metrics ? { metrics } : {});
    await app.listen();
    apps.push(app);
  }

  it('is taken back when its lock lapses, counted as stalled, and finished by another replica', async () => {
    await startApp({ TASK_WORKERS_ENABLED: 'false' });
    const { jobs } = await client.send(
      SUBJECTS.taskSubmit,
      {
        kind: 'url',
        request: {
          urls: ['https://site.test/p/1'],
          webhook: 'http://127.0.0.1:9/hook',
          type: 'scrape',
          timeout: 25000,
        },
      },
      { timeoutMs: 10_000 },
    );
    const id = jobs[0].id;

    // A worker takes the job, then dies without finishing it (its lock is no longer renewed).
    const connection = new Redis(redis.url, { maxRetriesPerRequest: null });
    const doomed = new Worker(QUEUES.scrape, null, {
      connection,
      prefix: queuePrefix(QUEUES.scrape),
      lockDuration: 1000,
      autorun: false,
    });
    const taken = await doomed.getNextJob('doomed-token');
    expect(taken?.id).toBe(id);
    await doomed.close(true);
    connection.disconnect();
    expect((await client.send(SUBJECTS.taskGet, { jobId: id }, { timeoutMs: 5000 })).status).toBe('active');

    const metrics = new TrawlMetrics({ service: 'task-service', defaultMetrics: false });
    await startApp({ TASK_WORKERS_ENABLED: 'true' }, metrics);
    const record = await eventually(async () => {
      const r = await client.send(SUBJECTS.taskGet, { jobId: id }, { timeoutMs: 5000 });
      return r.status === 'completed' ? r : undefined;
    }, 30_000);
    expect(record.data).toMatchObject({ sourceURL: 'https://site.test/p/1' });
    const attempts = await metrics.registry.getSingleMetric('trawl_queue_jobs_total')?.get();
    const count = (outcome: string) =>
      attempts?.values.find((v) => v.labels.queue === QUEUES.scrape && v.labels.outcome === outcome)?.value;
    expect(count('stalled')).toBe(1);
    expect(count('completed')).toBe(1);
  }, 60_000);
});
