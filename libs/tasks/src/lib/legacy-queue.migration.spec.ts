import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { FlowProducer, Queue, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { QUEUES, type QueueName } from '@trawl/contracts';
import { createRedisClient, standaloneRedisTopology, type RedisClient } from '@trawl/redis';
import { eventually, startRedis, type TestServer } from '@trawl/testing';
import { hasLegacyQueueKeys, migrateLegacyQueueKeys } from './legacy-queue.migration.js';
import { childJobId, newJobId } from './task-job-id.util.js';
import { outstandingSetKey, PUBLISHED_OUTCOMES_KEY, queuePrefix } from './task-redis-keys.constants.js';

describe('migrateLegacyQueueKeys (upgrade from the bull prefix)', () => {
  let server: TestServer;
  let redis: RedisClient;

  beforeAll(async () => {
    server = await startRedis();
    redis = createRedisClient(standaloneRedisTopology(server.url), { name: 'migration-spec', role: 'command' });
  });
  afterAll(async () => {
    redis?.disconnect();
    await server?.stop();
  });

  it('moves waiting, delayed and flow jobs queued under the legacy prefix, and new-layout workers then finish every one', async () => {
    // What a deployment of the previous version left behind: jobs under BullMQ's default prefix `bull`.
    const legacy = new Redis(server.url, { maxRetriesPerRequest: null });
    const scrape = new Queue(QUEUES.scrape, { connection: legacy, prefix: 'bull' });
    const urlIds = [newJobId(QUEUES.scrape), newJobId(QUEUES.scrape), newJobId(QUEUES.scrape)];
    for (const [i, jobId] of urlIds.entries()) await scrape.add('scrape', { n: i }, { jobId, priority: i + 1 });
    const delayedId = newJobId(QUEUES.scrape);
    await scrape.add('scrape', { n: 9 }, { jobId: delayedId, delay: 300 });
    const parentId = newJobId(QUEUES.batch);
    const flows = new FlowProducer({ connection: legacy, prefix: 'bull' });
    await flows.add({
      name: 'maps-batch',
      queueName: QUEUES.batch,
      data: { querys: ['a', 'b'] },
      opts: { jobId: parentId },
      children: ['a', 'b'].map((q, i) => ({
        name: 'maps-query',
        queueName: QUEUES.maps,
        data: { q },
        opts: { jobId: childJobId(QUEUES.maps, parentId, i) },
      })),
    });
    await legacy.sadd('bull:trawl:outstanding:k1', ...urlIds, delayedId, parentId);
    await legacy.zadd('bull:trawl:outcomes:published', Date.now(), 'evt-1');
    await Promise.all([scrape.close(), flows.close()]);
    legacy.disconnect();
    expect(await hasLegacyQueueKeys(redis)).toBe(true);

    const report = await migrateLegacyQueueKeys(redis);
    expect(report.queueKeys).toBeGreaterThan(0);
    expect(report).toMatchObject({ outstandingIds: 5, publishedMarks: 1 });
    expect(await redis.keys('bull:trawl*')).toEqual([]);
    expect(await hasLegacyQueueKeys(redis)).toBe(false);
    expect(await redis.smembers(outstandingSetKey(queuePrefix(QUEUES.scrape), 'k1'))).toHaveLength(4);
    expect(await redis.smembers(outstandingSetKey(queuePrefix(QUEUES.batch), 'k1'))).toEqual([parentId]);
    expect(await redis.zscore(PUBLISHED_OUTCOMES_KEY, 'evt-1')).not.toBeNull();
    // A second run finds nothing left to move.
    expect(await migrateLegacyQueueKeys(redis)).toEqual({ queueKeys: 0, outstandingIds: 0, publishedMarks: 0 });

    // The new layout's workers take every moved job, and the flow's parent completes with its children's results.
    const done = new Map<string, unknown>();
    const workers = ([QUEUES.scrape, QUEUES.maps, QUEUES.batch] as QueueName[]).map((name) =>
      new Worker(
        name,
        async (job: Job) => (name === QUEUES.batch ? Object.values(await job.getChildrenValues()) : job.data),
        { connection: { url: server.url }, prefix: queuePrefix(name) },
      ).on('completed', (job: Job, value: unknown) => done.set(String(job.id), value)),
    );
    try {
      await eventually(() => [...urlIds, delayedId, parentId].every((id) => done.has(id)), 20_000);
      expect(done.get(urlIds[1])).toEqual({ n: 1 });
      expect(done.get(delayedId)).toEqual({ n: 9 });
      expect(done.get(parentId)).toEqual(expect.arrayContaining([{ q: 'a' }, { q: 'b' }]));
    } finally {
      await Promise.all(workers.map((w) => w.close()));
    }
  });
});
