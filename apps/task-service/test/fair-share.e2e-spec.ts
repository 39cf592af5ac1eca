import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestMicroservice } from '@nestjs/common';
import type { NatsConnection, Subscription } from '@nats-io/nats-core';
import { loadEnv, TaskServiceEnv } from '@trawl/config';
import { SUBJECTS, type ScrapeResult, type TaskFinishedEvent } from '@trawl/contracts';
import { connectNats, MessagingClient } from '@trawl/messaging';
import { eventually, serveSubject, startNats, startRedis, type TestServer } from '@trawl/testing';
import { createTaskServiceApp } from '../src/task-service-app.factory.js';

const WEBHOOK = 'http://127.0.0.1:9/hook';

/**
 * Issue 8, "must show" 4: one key's large batch does not hold back another key's job, and a key cannot queue past its
 * cap. task-service in process on real Redis and NATS (JetStream); a stand-in scrape extractor on the real subject
 * that takes a little while per page; outcomes observed on `task.finished.v1` in the order they are published.
 */
describe('fair share between API keys (in-process task-service, real Redis and NATS)', () => {
  let redis: TestServer;
  let nats: TestServer;
  let nc: NatsConnection;
  let client: MessagingClient;
  let app: INestMicroservice;
  let outcomesSub: Subscription;
  /** Every outcome published, in order. */
  const outcomes: TaskFinishedEvent[] = [];

  beforeAll(async () => {
    redis = await startRedis();
    nats = await startNats();
    nc = await connectNats([nats.url], 'fair-share-e2e');
    client = new MessagingClient(nc);
    serveSubject(nc, SUBJECTS.scrapePage, async (data) => {
      const { url } = data as { url: string };
      await new Promise((r) => setTimeout(r, 15));
      const result: ScrapeResult = {
        sourceURL: url,
        taskId: 'stand-in',
        edgeId: 'stand-in',
        status: 200,
        rawStatus: 200,
        markdown: `# ${url}`,
        metadata: { title: url, url, engine: 'http', contentType: 'text/html' },
      };
      return result;
    });
    outcomesSub = nc.subscribe(SUBJECTS.taskFinished, {
      callback: (err, msg) => {
        if (!err) outcomes.push(msg.json<TaskFinishedEvent>());
      },
    });
    await nc.flush();
    const env = loadEnv(TaskServiceEnv, {
      NATS_URL: nats.url,
      REDIS_URL: redis.url,
      SSRF_ALLOW_HOSTS: '127.0.0.1',
      LOG_LEVEL: 'silent',
      TASK_SHUTDOWN_GRACE_MS: '100',
      TASK_CONCURRENCY_SCRAPE: '4',
      TASK_MAX_OUTSTANDING_PER_KEY: '400',
    });
    app = await createTaskServiceApp(env);
    await app.listen();
  });

  afterAll(async () => {
    outcomesSub?.unsubscribe();
    await app?.close();
    await nc?.close();
    await nats?.stop();
    await redis?.stop();
  });

  const submitUrls = (apiKeyId: string, urls: string[]) =>
    client.send(
      SUBJECTS.taskSubmit,
      { kind: 'url', request: { urls, webhook: WEBHOOK, type: 'scrape' }, apiKeyId } as never,
      { timeoutMs: 20_000 },
    );
  const doneOf = (apiKeyId: string) => outcomes.filter((o) => o.apiKeyId === apiKeyId);

  it("key B's single job finishes before key A's 300-URL batch, submitted first and running, is 20% done", async () => {
    const a = await submitUrls(
      'key-a',
      Array.from({ length: 300 }, (_, i) => `https://a.test/p/${i}`),
    );
    expect(a.jobs).toHaveLength(300);
    // A's batch is under way before B asks.
    await eventually(() => doneOf('key-a').length >= 4, 20_000);

    const b = await submitUrls('key-b', ['https://b.test/only']);
    const bId = b.jobs[0].id;
    await eventually(() => outcomes.some((o) => o.task.taskId === bId), 30_000);
    const aDoneWhenBFinished = outcomes
      .slice(
        0,
        outcomes.findIndex((o) => o.task.taskId === bId),
      )
      .filter((o) => o.apiKeyId === 'key-a').length;
    expect(outcomes.find((o) => o.task.taskId === bId)?.event).toBe('task.completed');
    expect(aDoneWhenBFinished).toBeLessThan(60);

    // A's batch still finishes, every task once; its key's count of outstanding jobs drains to zero.
    await eventually(() => doneOf('key-a').length >= 300, 60_000);
    expect(new Set(doneOf('key-a').map((o) => o.task.taskId)).size).toBe(300);
  }, 90_000);

  it('refuses a batch that would take a key past its cap whole (RATE_LIMITED, nothing queued), and admits it once jobs finished', async () => {
    const first = await submitUrls(
      'key-c',
      Array.from({ length: 350 }, (_, i) => `https://c.test/p/${i}`),
    );
    expect(first.jobs).toHaveLength(350);
    await expect(
      submitUrls(
        'key-c',
        Array.from({ length: 100 }, (_, i) => `https://c.test/more/${i}`),
      ),
    ).rejects.toMatchObject({ code: 'RATE_LIMITED', message: expect.stringMatching(/at most 400/) });
    // Another key is not affected by key C's cap.
    expect((await submitUrls('key-d', ['https://d.test/x'])).jobs).toHaveLength(1);
    // Once C's jobs are done they no longer count: the same batch is admitted.
    await eventually(() => doneOf('key-c').length >= 350, 60_000);
    expect(
      (
        await submitUrls(
          'key-c',
          Array.from({ length: 100 }, (_, i) => `https://c.test/more/${i}`),
        )
      ).jobs,
    ).toHaveLength(100);
    await eventually(() => doneOf('key-c').length >= 450, 60_000);
    // Only the admitted jobs ran: none of the refused batch was queued.
    expect(doneOf('key-c')).toHaveLength(450);
  }, 120_000);
});
