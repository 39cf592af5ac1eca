import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestMicroservice } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/nats-core';
import { Redis } from 'ioredis';
import { loadEnv, TaskServiceEnv } from '@trawl/config';
import { SUBJECTS, type ScrapeResult, type TaskRecord } from '@trawl/contracts';
import { connectNats, MessagingClient } from '@trawl/messaging';
import {
  eventually,
  serveSubject,
  startNats,
  startRedisSentinelGroup,
  type RedisSentinelGroup,
  type TestServer,
} from '@trawl/testing';
import { createTaskServiceApp } from '../src/task-service-app.factory.js';
import { TaskRuntimeService } from '../src/task-runtime.service.js';

/**
 * The known failure modes of the queue library after a Sentinel failover (issue 15): a worker whose blocking
 * connection ended, or that is bound to a demoted master, must still take the next job, without a restart.
 */
describe('task-service behind Sentinel: workers take jobs again after a failover, without a restart', () => {
  let group: RedisSentinelGroup;
  let nats: TestServer;
  let nc: NatsConnection;
  let client: MessagingClient;
  let app: INestMicroservice;
  const calls = new Map<string, number>();
  const slow = new Set<string>();

  beforeAll(async () => {
    group = await startRedisSentinelGroup({ replicas: 2, sentinels: 3 });
    nats = await startNats();
    nc = await connectNats([nats.url], 'failover-e2e');
    client = new MessagingClient(nc);
    serveSubject(nc, SUBJECTS.scrapePage, async (data) => {
      const { url } = data as { url: string };
      calls.set(url, (calls.get(url) ?? 0) + 1);
      if (slow.has(url)) await new Promise((r) => setTimeout(r, 6000));
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
    const env = loadEnv(TaskServiceEnv, {
      NATS_URL: nats.url,
      ...group.env,
      SSRF_ALLOW_HOSTS: '127.0.0.1',
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      TASK_SHUTDOWN_GRACE_MS: '100',
      // Short locks, so that a job whose worker lost Redis during the failover stalls and is taken back soon; but
      // longer than a reconnect: a client waits at least 1 s before it tries again (redisRetryDelay), and Sentinel
      // drops the clients that reached the promoted replica early once more when it reconfigures it. A lock shorter
      // than that lapses under a job taken just before that drop, which then runs twice (at least once: its outcome
      // is still published once).
      TASK_LOCK_DURATION_MS: '5000',
      TASK_STALLED_INTERVAL_MS: '1000',
      // Any stall for another cause would fail the job at once: a stall the outage caused must not count.
      TASK_MAX_STALLED_COUNT: '0',
    });
    app = await createTaskServiceApp(env);
    await app.listen();
  }, 90_000);

  afterAll(async () => {
    await app?.close();
    await nc?.close();
    await nats?.stop();
    await group?.stop();
  });

  /**
   * Submits one scrape task, retrying while the call is refused (during a failover it answers 503) or unanswered, as
   * a careful client does: with an Idempotency-Key, so that a submission that was made but answered too late for the
   * client is not made a second time by the retry (ADR 0015: the call may fail after its jobs were made).
   */
  async function submit(url: string): Promise<string> {
    const idempotencyKey = `failover-${url}`;
    const reply = await eventually(
      () =>
        client
          .send(
            SUBJECTS.taskSubmit,
            {
              kind: 'url',
              request: { urls: [url], webhook: 'http://127.0.0.1:9/hook', type: 'scrape', timeout: 25_000 },
              idempotencyKey,
            },
            { timeoutMs: 10_000 },
          )
          .catch(() => undefined),
      60_000,
      250,
    );
    return reply.jobs[0].id;
  }
  const lookup = (id: string) => client.send(SUBJECTS.taskGet, { jobId: id }, { timeoutMs: 5000 });
  const finished = (id: string) =>
    eventually(
      async () => {
        const r: TaskRecord | undefined = await lookup(id).catch(() => undefined);
        return r && (r.status === 'completed' || r.status === 'failed') ? r : undefined;
      },
      60_000,
      200,
    ).catch(async (e: unknown) => {
      const r = await lookup(id).catch((x: unknown) => x);
      throw new Error(
        `${String(e)}; task ${JSON.stringify(r)}; workers ${JSON.stringify(app.get(TaskRuntimeService).workerStates())}`,
      );
    });
  const idle = () => new Promise((r) => setTimeout(r, 3000));

  it('takes a job before any failover', async () => {
    const id = await submit('https://site.test/before');
    expect((await finished(id)).status).toBe('completed');
  });

  it('after the master is SIGKILLed and a replica promoted, idle workers take a new job', async () => {
    await idle();
    const { old, promoted } = await group.killMaster();
    expect(promoted.address).not.toBe(old.address);
    const id = await submit('https://site.test/after-kill');
    expect((await finished(id)).status).toBe('completed');
    expect(calls.get('https://site.test/after-kill')).toBe(1);
    // Readiness names each queue's worker; every one takes jobs again.
    const states = app.get(TaskRuntimeService).workerStates();
    expect(Object.keys(states)).toHaveLength(7);
    expect(Object.values(states).every((s) => s?.state === 'taking-jobs')).toBe(true);
  }, 120_000);

  it('after a failover that demotes the master (it stays up as a replica), idle workers take a new job', async () => {
    await idle();
    const before = await group.master();
    const sentinel = new Redis(group.sentinels[0].port, '127.0.0.1');
    try {
      // A failover still settling from the test before answers INPROG (or NOGOODSLAVE while the replicas catch up):
      // asked again until Sentinel starts this one.
      await eventually(
        async () => (await sentinel.call('SENTINEL', 'FAILOVER', group.name).catch(() => undefined)) === 'OK',
        30_000,
        250,
      );
    } finally {
      sentinel.disconnect();
    }
    // The master's address changes (compared by address: each call answers a new object).
    await eventually(async () => (await group.master().catch(() => before)).address !== before.address, 30_000, 100);
    const id = await submit('https://site.test/after-demotion');
    expect((await finished(id)).status).toBe('completed');
  }, 120_000);

  it('a job left active on the lost master is taken back and completes, the stall not counted against it', async () => {
    const url = 'https://site.test/active-during-failover';
    slow.add(url);
    const id = await submit(url);
    await eventually(async () => (await lookup(id)).status === 'active', 20_000, 50);
    await group.killMaster();
    const record = await finished(id);
    expect(record.error).toBeNull();
    expect(record.status).toBe('completed');
    // One attempt, the one that completed: the stall used none.
    expect(record.attemptsMade).toBe(1);
  }, 120_000);
});
