import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { SUBJECT_TABLE, type CrawlDocument } from '@trawl/contracts';
import { connectNats } from '@trawl/messaging';
import { createRedisClient, standaloneRedisTopology, type RedisClient } from '@trawl/redis';
import { EMPTY_ALLOW_LIST } from '@trawl/safe-fetch';
import { startNats, startRedis, type TestServer } from '@trawl/testing';
import { ACTIVE_CRAWLS_KEY, ACTIVE_CRAWL_OWNERS_KEY } from './crawl-redis-keys.constants.js';
import { CrawlDocumentsStore } from './crawl-documents.store.js';
import { refuseDisallowed } from './disallowed-url.guard.js';
import { CrawlService } from './crawl.service.js';
import { CrawlStore } from './crawl.store.js';

/** The payloads as task-service's handlers receive them: checked by their rows (`@ServesSubject`). */
const startOf = (payload: unknown) => SUBJECT_TABLE.crawlStart.request.parse(payload);
const getOf = (payload: unknown) => SUBJECT_TABLE.crawlGet.request.parse(payload);
const cancelOf = (payload: unknown) => SUBJECT_TABLE.crawlCancel.request.parse(payload);
const activeOf = (payload: unknown) => SUBJECT_TABLE.crawlActive.request.parse(payload);

function errorOf(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  return undefined;
}

const doc = (n: number): CrawlDocument => ({
  sourceURL: `http://h/${n}`,
  taskId: 't',
  edgeId: 'e',
  status: 200,
  rawStatus: 200,
  markdown: `# ${n} ${'x'.repeat(1000)}`,
  metadata: {
    title: `P${n}`,
    url: `http://h/${n}`,
    engine: 'http',
    contentType: 'text/html',
    sourceURL: `http://h/${n}`,
    statusCode: 200,
  },
});

describe('CrawlService (real Redis and NATS JetStream)', () => {
  let redisServer: TestServer;
  let natsServer: TestServer;
  let redis: RedisClient;
  let nc: NatsConnection;
  let store: CrawlStore;
  let documents: CrawlDocumentsStore;
  let service: CrawlService;

  beforeAll(async () => {
    redisServer = await startRedis({ persist: false });
    natsServer = await startNats();
    redis = createRedisClient(standaloneRedisTopology(redisServer.url), {
      name: 'crawl-service-spec',
      role: 'command',
    });
    nc = await connectNats([natsServer.url], 'crawl-service-spec');
    documents = new CrawlDocumentsStore(jetstream(nc), await jetstreamManager(nc), {
      maxBytes: 16 * 1024 * 1024,
      maxAgeMs: 60 * 60 * 1000,
      maxDocumentBytes: 1024 * 1024,
      duplicateWindowMs: 60_000,
    });
    await documents.ensureStream();
    store = new CrawlStore(redis, { retentionSec: 3600 });
    // Replies of at most 64 KB: a page of documents stops before it.
    service = new CrawlService(store, documents, { maxReplyBytes: () => 64 * 1024, maxPageDocuments: 1000 });
  });

  afterAll(async () => {
    await nc?.close();
    redis?.disconnect();
    await natsServer?.stop();
    await redisServer?.stop();
  });

  it('finds a crawl only for the key that started it', async () => {
    const { id } = await service.start(startOf({ request: { url: 'http://h/' }, apiKeyId: 'key-a' }));
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    await expect(service.get(getOf({ id, apiKeyId: 'key-a' }))).resolves.toMatchObject({ id, status: 'scraping' });
    await expect(service.get(getOf({ id, apiKeyId: 'key-b' }))).rejects.toMatchObject({ code: 'TASK_NOT_FOUND' });
    await expect(service.get(getOf({ id }))).rejects.toMatchObject({ code: 'TASK_NOT_FOUND' });
    await expect(service.cancel(cancelOf({ id, apiKeyId: 'key-b' }))).rejects.toMatchObject({ code: 'TASK_NOT_FOUND' });
    expect(errorOf(() => getOf({ id: 'nope', apiKeyId: 'key-a' }))).toMatchObject({
      code: 'VALIDATION_FAILED',
      field: 'id',
    });
    expect(errorOf(() => getOf({ id, cursor: 0 }))).toMatchObject({ code: 'VALIDATION_FAILED', field: 'cursor' });
    expect(errorOf(() => cancelOf({ id, extra: 1 }))).toMatchObject({ code: 'VALIDATION_FAILED', field: 'extra' });
    expect(errorOf(() => startOf({ request: { url: 'http://h/', limit: -1 } }))).toMatchObject({
      code: 'VALIDATION_FAILED',
      field: 'request.limit',
    });
  });

  it('pages through the documents with a cursor, each once, and has no next once the crawl ended and all were read', async () => {
    const { id } = await service.start(startOf({ request: { url: 'http://h/' }, apiKeyId: 'key-a' }));
    for (let n = 0; n < 150; n++) await documents.put(id, `http://h/${n}`, doc(n));
    // Stored again (a retry after a crash): still once.
    await documents.put(id, 'http://h/7', doc(7));
    const read: string[] = [];
    let cursor: number | null = 1;
    let pagesRead = 0;
    while (cursor !== null) {
      const page = await service.get(getOf({ id, apiKeyId: 'key-a', cursor }));
      read.push(...page.data.map((d) => d.metadata.title));
      pagesRead += 1;
      if (page.data.length === 0 && page.status === 'scraping') {
        // Caught up while the crawl still runs: the cursor stays; cancelling ends it.
        expect(page.cursor).toBe(cursor);
        const cancelled = await service.cancel(cancelOf({ id, apiKeyId: 'key-a' }));
        expect(cancelled.status).toBe('cancelled');
      }
      cursor = page.cursor;
    }
    expect(read).toEqual(Array.from({ length: 150 }, (_, n) => `P${n}`));
    expect(pagesRead).toBeGreaterThan(2);
  });

  it('refuses a start URL the SSRF guard refuses, recording nothing', async () => {
    const guarded = new CrawlService(store, documents, {
      maxReplyBytes: () => 64 * 1024,
      maxPageDocuments: 1000,
      checkUrl: (url) => refuseDisallowed(url, EMPTY_ALLOW_LIST),
    });
    const before = await redis.scard(ACTIVE_CRAWLS_KEY);
    await expect(guarded.start(startOf({ request: { url: 'http://127.0.0.1:9/' } }))).rejects.toMatchObject({
      code: 'URL_NOT_ALLOWED',
    });
    await expect(guarded.start(startOf({ request: { url: 'http://169.254.169.254/' } }))).rejects.toMatchObject({
      code: 'URL_NOT_ALLOWED',
    });
    expect(await redis.scard(ACTIVE_CRAWLS_KEY)).toBe(before);
  });
  it('caps the crawls one key has running: a start past the cap is RATE_LIMITED and leaves nothing recorded', async () => {
    const capped = new CrawlService(store, documents, {
      maxReplyBytes: () => 64 * 1024,
      maxPageDocuments: 1000,
      maxActivePerKey: 2,
    });
    const start = (key: string) => capped.start(startOf({ request: { url: 'http://h/' }, apiKeyId: key }));
    const records = async () => (await redis.keys('trawl:{crawl:*}:meta')).length;
    const first = await start('key-c');
    const second = await start('key-c');
    const [activeBefore, recordsBefore] = [await redis.scard(ACTIVE_CRAWLS_KEY), await records()];
    await expect(start('key-c')).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    expect(await redis.scard(ACTIVE_CRAWLS_KEY)).toBe(activeBefore);
    expect(await records()).toBe(recordsBefore);
    // Another key is not held back by key-c's crawls.
    const other = await start('key-d');
    const byOwner = await store.activeByOwner();
    expect(byOwner.get('key-c')?.sort()).toEqual([first.id, second.id].sort());
    expect(byOwner.get('key-d')).toEqual([other.id]);
    expect(await redis.hget(ACTIVE_CRAWL_OWNERS_KEY, other.id)).toBe('key-d');
    // A cancelled crawl counts until a worker takes it off the active ones (as it does once its end is published).
    await capped.cancel(cancelOf({ id: first.id, apiKeyId: 'key-c' }));
    await expect(start('key-c')).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    await store.deactivate(first.id);
    expect(await store.activeCount('key-c')).toBe(1);
    const again = await start('key-c');
    expect((await store.activeByOwner()).get('key-c')?.sort()).toEqual([second.id, again.id].sort());
    expect(await redis.hget(ACTIVE_CRAWL_OWNERS_KEY, first.id)).toBeNull();
  });
  it("lists a key's running crawls, oldest first, without their webhooks, and keeps its errors for the key alone", async () => {
    const start = (url: string, extra: Record<string, unknown> = {}) =>
      service.start(startOf({ request: { url, ...extra }, apiKeyId: 'key-e' }));
    const first = await start('http://h/one', { limit: 7, webhook: 'https://hooks.test/secret-path' });
    await new Promise((r) => setTimeout(r, 5)); // a later millisecond: "oldest first" by the start time
    const second = await start('http://h/two');
    const { crawls } = await service.active(activeOf({ apiKeyId: 'key-e' }));
    expect(crawls.map((c) => [c.id, c.url])).toEqual([
      [first.id, 'http://h/one'],
      [second.id, 'http://h/two'],
    ]);
    expect(crawls[0]!.options).toMatchObject({ limit: 7 });
    expect(JSON.stringify(crawls)).not.toContain('hooks.test');
    expect(Date.parse(crawls[0]!.createdAt)).toBeGreaterThan(0);
    // Another key sees none of them; a cancelled crawl is no longer listed.
    expect((await service.active(activeOf({ apiKeyId: 'key-f' }))).crawls).toEqual([]);
    await service.cancel(cancelOf({ id: first.id, apiKeyId: 'key-e' }));
    expect((await service.active(activeOf({ apiKeyId: 'key-e' }))).crawls.map((c) => c.id)).toEqual([second.id]);
    expect(errorOf(() => activeOf({ apiKeyId: 'key-e', extra: 1 }))).toMatchObject({ code: 'VALIDATION_FAILED' });

    // Errors as the workers note them when they settle a page.
    const lease = await store.lease(second.id, 5000);
    expect(lease).toMatchObject({ item: { k: 'seed' } });
    await store.settle(second.id, lease as Exclude<typeof lease, string>, 'dropped', '', {
      error: { url: 'http://h/two/broken', code: 'UPSTREAM_TIMEOUT', error: 'the page did not load in time' },
      blocked: ['http://h/two/private/b', 'http://h/two/private/a', 'http://h/two/private/a'],
    });
    const errors = await service.errors(cancelOf({ id: second.id, apiKeyId: 'key-e' }));
    expect(errors).toEqual({
      errors: [
        {
          url: 'http://h/two/broken',
          code: 'UPSTREAM_TIMEOUT',
          error: 'the page did not load in time',
          timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        },
      ],
      robotsBlocked: ['http://h/two/private/a', 'http://h/two/private/b'],
    });
    await expect(service.errors(cancelOf({ id: second.id, apiKeyId: 'key-f' }))).rejects.toMatchObject({
      code: 'TASK_NOT_FOUND',
    });
  });
});
