import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestMicroservice } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/nats-core';
import { loadEnv, TaskServiceEnv } from '@trawl/config';
import { QUEUES, SUBJECTS, type QueueName, type ScrapeResult } from '@trawl/contracts';
import { connectNats, MessagingClient } from '@trawl/messaging';
import { queuePrefix } from '@trawl/tasks';
import {
  eventually,
  serveSubject,
  startNats,
  startRedisCluster,
  type RedisClusterGroup,
  type TestServer,
} from '@trawl/testing';
import { createTaskServiceApp } from '../src/task-service-app.factory.js';

/**
 * Must-show 2 of issue 15: the task-service on a Redis Cluster of 3 masters (`redis-cli --cluster create`). Every
 * multi-key operation (the batch insert's MULTI with the key's outstanding set, BullMQ's flows and scripts, the
 * published marks) must stay within one slot, or Redis answers CROSSSLOT.
 */
describe('task-service on a Redis Cluster of 3 masters (in-process, stand-in extractors)', () => {
  let cluster: RedisClusterGroup;
  let nats: TestServer;
  let nc: NatsConnection;
  let client: MessagingClient;
  let app: INestMicroservice;

  beforeAll(async () => {
    cluster = await startRedisCluster({ masters: 3 });
    nats = await startNats();
    nc = await connectNats([nats.url], 'redis-cluster-e2e');
    client = new MessagingClient(nc);
    serveSubject(nc, SUBJECTS.scrapePage, (data) => {
      const { url } = data as { url: string };
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
    serveSubject(nc, SUBJECTS.searchMaps, (data) => {
      const { q } = data as { q: string };
      return { data: { organicResults: [{ name: `place for ${q}` }] }, q };
    });
    serveSubject(nc, SUBJECTS.searchWeb, (data) => {
      const { q } = data as { q: string };
      return { results: [{ title: `result for ${q}` }], location: { htmlLang: 'en' } };
    });
    await nc.flush();
    const env = loadEnv(TaskServiceEnv, {
      NATS_URL: nats.url,
      ...cluster.env,
      SSRF_ALLOW_HOSTS: '127.0.0.1',
      LOG_LEVEL: 'silent',
      TASK_SHUTDOWN_GRACE_MS: '100',
      TASK_OUTCOME_SWEEP_INTERVAL_MS: '300',
    });
    app = await createTaskServiceApp(env);
    await app.listen();
  });

  afterAll(async () => {
    await app?.close();
    await nc?.close();
    await nats?.stop();
    await cluster?.stop();
  });

  const submit = (payload: unknown) => client.send(SUBJECTS.taskSubmit, payload as never, { timeoutMs: 20_000 });
  const statusOf = async (jobId: string) =>
    (await client.send(SUBJECTS.taskGet, { jobId, apiKeyId: 'k1' }, { timeoutMs: 5000 })).status;
  const webhook = 'http://127.0.0.1:9/hook';

  it('completes a batch of each kind (URLs, maps queries, search queries), with the queues on more than one master', async () => {
    const urls = Array.from({ length: 30 }, (_, i) => `https://site.test/p/${i}`);
    const urlJobs = (await submit({ kind: 'url', request: { urls, webhook, type: 'scrape' }, apiKeyId: 'k1' })).jobs;
    const maps = (
      await submit({ kind: 'maps', request: { querys: ['cafe', 'bakery', 'museum'], webhook }, apiKeyId: 'k1' })
    ).jobs;
    const search = (
      await submit({ kind: 'search', request: { querys: ['espresso', 'flat white'], webhook }, apiKeyId: 'k1' })
    ).jobs;
    expect(urlJobs).toHaveLength(30);
    expect(maps).toHaveLength(1);
    expect(search).toHaveLength(1);

    const ids = [...urlJobs, ...maps, ...search].map((j) => j.id);
    await eventually(async () => {
      for (const id of ids) if ((await statusOf(id)) !== 'completed') return false;
      return true;
    }, 60_000);

    // Each queue's keys sit in its tag's one slot, and the tags spread over more than one master.
    const holders = new Map<QueueName, string>();
    for (const name of Object.values(QUEUES)) {
      const id = await cluster.masterOfKey(`${queuePrefix(name)}:${name}:id`);
      holders.set(name, id.address);
    }
    const byNode = await cluster.keysByNode('bull:{*');
    for (const [address, keys] of byNode) {
      for (const key of keys) {
        const name = Object.values(QUEUES).find((q) => key.startsWith(`${queuePrefix(q)}:`));
        if (name && key.includes(`:${name}:`)) expect([key, holders.get(name)]).toEqual([key, address]);
      }
    }
    const used = [...byNode.entries()].filter(([, keys]) => keys.length > 0).map(([address]) => address);
    expect(new Set(used).size).toBeGreaterThan(1);
    expect(await cluster.keySlot(`${queuePrefix(QUEUES.maps)}:${QUEUES.maps}:wait`)).toBe(
      await cluster.keySlot(`${queuePrefix(QUEUES.batch)}:${QUEUES.batch}:wait`),
    );
  });
});
