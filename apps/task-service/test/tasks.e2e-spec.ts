import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestMicroservice } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/nats-core';
import { Queue } from 'bullmq';
import { loadEnv, TaskServiceEnv } from '@trawl/config';
import {
  DEFAULT_JOB_OPTIONS,
  QUEUES,
  SUBJECTS,
  TrawlError,
  type BatchJob,
  type ScrapeResult,
  type TaskRecord,
} from '@trawl/contracts';
import { queuePrefix } from '@trawl/tasks';
import { connectNats, MessagingClient } from '@trawl/messaging';
import { eventually, serveSubject, startNats, startRedis, type TestServer } from '@trawl/testing';
import { WebhookDispatcher, WebhookSender, WebhookUrlGuard } from '@trawl/webhooks';
import { createTaskServiceApp } from '../src/task-service-app.factory.js';
import { startSignedReceiver, type SignedReceiver } from './support/signed-receiver.js';

const SECRET = `whsec_${Buffer.from('task-service-e2e-signing-secret-0123').toString('base64')}`;
const SPEC_OPTS = {
  attempts: 5,
  removeOnComplete: 300000,
  removeOnFail: 100000,
  backoff: { type: 'fixed', delay: 1000 },
};

describe('task-service (in-process, real Redis and NATS, stand-in extractors, real webhook receiver)', () => {
  let redis: TestServer;
  let nats: TestServer;
  let nc: NatsConnection;
  let client: MessagingClient;
  let app: INestMicroservice;
  let dispatcher: WebhookDispatcher;
  let sender: WebhookSender;
  let receiver: SignedReceiver;
  let flaky: SignedReceiver;
  const scrapeCalls = new Map<string, number>();
  const scrapeTenants = new Map<string, string | undefined>();
  let releaseMaps: () => void = () => undefined;
  const mapsGate = new Promise<void>((resolve) => (releaseMaps = resolve));

  beforeAll(async () => {
    redis = await startRedis();
    // NATS's 1 MB default (not Trawl's 8 MB) so that the refusal of a batch whose reply would not fit is tested.
    nats = await startNats({ maxPayload: '1MB' });
    nc = await connectNats([nats.url], 'task-service-e2e');
    client = new MessagingClient(nc);

    // Stand-in extractors on the real subjects: a page that scrapes, one that is not recognised, one that is slow.
    serveSubject(nc, SUBJECTS.scrapePage, async (data) => {
      const { url, tenant } = data as { url: string; tenant?: string };
      scrapeCalls.set(url, (scrapeCalls.get(url) ?? 0) + 1);
      scrapeTenants.set(url, tenant);
      if (url.includes('/unrecognised')) throw new TrawlError('PAGE_NOT_RECOGNISED', 'not a page we know');
      if (url.includes('/slow')) await new Promise((r) => setTimeout(r, 1500));
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
    serveSubject(nc, SUBJECTS.searchMaps, async (data) => {
      await mapsGate;
      const { q } = data as { q: string };
      if (q === 'nowhere') throw new TrawlError('UPSTREAM_NOT_FOUND', 'no such place');
      return { data: { organicResults: [{ name: `place for ${q}` }] }, q };
    });
    serveSubject(nc, SUBJECTS.searchWeb, (data) => {
      const { q, gl, num, meta } = data as { q: string; gl: string; num: number; meta?: boolean };
      return {
        results: [{ title: `result for ${q}` }],
        location: { htmlLang: 'en' },
        gl,
        num,
        askedMeta: meta ?? null,
      };
    });
    // A retail page: says whether the request asked for `meta` (the extractor would add the block).
    serveSubject(nc, SUBJECTS.extractRetail, (data) => {
      const { url, meta } = data as { url: string; meta?: boolean };
      return { url, askedMeta: meta ?? null };
    });
    await nc.flush();

    receiver = await startSignedReceiver(SECRET);
    flaky = await startSignedReceiver(SECRET, (attempt) => (attempt <= 3 ? 500 : 200));

    const env = loadEnv(TaskServiceEnv, {
      NATS_URL: nats.url,
      REDIS_URL: redis.url,
      SSRF_ALLOW_HOSTS: '127.0.0.1',
      LOG_LEVEL: 'silent',
      TASK_SHUTDOWN_GRACE_MS: '100',
      TASK_CONCURRENCY_SCRAPE: '20',
      TASK_OUTCOME_SWEEP_INTERVAL_MS: '300',
    });
    app = await createTaskServiceApp(env);
    await app.listen();

    sender = new WebhookSender(new WebhookUrlGuard(['127.0.0.1']), async () => SECRET, { timeoutMs: 2000 });
    dispatcher = new WebhookDispatcher(nc, sender, {
      concurrency: 32,
      maxPending: 10_000,
      ackWaitMs: 10_000,
      retry: { schedule: [100, 100, 100, 100], jitter: 0.2, maxRetryAfterMs: 1000 },
    });
    await dispatcher.start();
  });

  afterAll(async () => {
    releaseMaps();
    await dispatcher?.close();
    await sender?.close();
    await app?.close();
    await nc?.close();
    await receiver?.close();
    await flaky?.close();
    await nats?.stop();
    await redis?.stop();
  });

  const submit = (payload: unknown) => client.send(SUBJECTS.taskSubmit, payload as never, { timeoutMs: 20_000 });
  const lookup = (jobId: string) => client.send(SUBJECTS.taskGet, { jobId }, { timeoutMs: 5000 });
  const deliveriesOf = (r: SignedReceiver, taskId: string) => r.deliveries.filter((d) => d.body?.taskId === taskId);
  /** Waits until every task has a delivered outcome, then one more sweep period so a duplicate would show. */
  async function outcomesOf(r: SignedReceiver, ids: string[]) {
    await eventually(() => ids.every((id) => deliveriesOf(r, id).some((d) => d.status === 200)), 45_000);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    return ids.map((id) => deliveriesOf(r, id));
  }
  async function totalJobs(): Promise<number> {
    let n = 0;
    for (const name of Object.values(QUEUES)) {
      const q = new Queue(name, { connection: { url: redis.url }, prefix: queuePrefix(name) });
      const counts = await q.getJobCounts();
      n += Object.values(counts).reduce((a, b) => a + b, 0);
      await q.close();
    }
    return n;
  }

  it('asks extractor-scrape for a URL task with the submitting key as the tenant (ADR 0017), none without a key', async () => {
    await submit({
      kind: 'url',
      request: { urls: ['https://example.com/tenant-of-key'], webhook: `${receiver.url}/hook`, type: 'scrape' },
      apiKeyId: 'tenant-key',
    });
    await submit({
      kind: 'url',
      request: { urls: ['https://example.com/tenant-unknown'], webhook: `${receiver.url}/hook`, type: 'scrape' },
    });
    const asked = (path: string) => [...scrapeTenants].find(([url]) => url.startsWith(`https://example.com/${path}`));
    for (let i = 0; i < 200 && !(asked('tenant-of-key') && asked('tenant-unknown')); i++)
      await new Promise((r) => setTimeout(r, 50));
    expect(asked('tenant-of-key')).toEqual([expect.any(String), 'tenant-key']);
    expect(asked('tenant-unknown')).toEqual([expect.any(String), undefined]);
  });

  it('answers a URL batch at once with one job object per URL, exactly as the spec lists (defaults applied)', async () => {
    const reply = await submit({
      kind: 'url',
      request: {
        urls: ['https://example.com/a', 'https://example.com/b?x=1'],
        webhook: `${receiver.url}/hook`,
        type: 'scrape',
        params: { hl: 'de' },
      },
      apiKeyId: 'key-1',
    });
    expect(reply.jobs).toHaveLength(2);
    const [job] = reply.jobs;
    expect(Object.keys(job).sort()).toEqual(
      [
        'name',
        'data',
        'opts',
        'id',
        'progress',
        'returnvalue',
        'stacktrace',
        'priority',
        'attemptsStarted',
        'attemptsMade',
        'timestamp',
        'queueQualifiedName',
      ].sort(),
    );
    expect(job).toMatchObject({
      name: 'scrape',
      data: {
        url: 'https://example.com/a?hl=de',
        timeout: 25000,
        webhook: `${receiver.url}/hook`,
        type: 'scrape',
        params: { hl: 'de' },
      },
      opts: SPEC_OPTS,
      progress: 0,
      returnvalue: null,
      stacktrace: null,
      priority: 1,
      attemptsStarted: 0,
      attemptsMade: 0,
      queueQualifiedName: `${queuePrefix(QUEUES.scrape)}:${QUEUES.scrape}`,
    });
    expect(job.opts).toEqual(DEFAULT_JOB_OPTIONS);
    expect(job.data).not.toHaveProperty('apiKeyId');
    expect(reply.jobs[1].data).toMatchObject({ url: 'https://example.com/b?x=1&hl=de' });
    expect(typeof job.timestamp).toBe('number');
    expect(new Set(reply.jobs.map((j) => j.id)).size).toBe(2);
  });

  it('delivers exactly one signed final outcome per task of a 100-URL batch, and task lookup agrees with each', async () => {
    const urls = Array.from({ length: 100 }, (_, i) => `https://site.test/p/${i}`);
    const { jobs } = await submit({
      kind: 'url',
      request: { urls, webhook: `${receiver.url}/batch100`, type: 'scrape' },
    });
    expect(jobs).toHaveLength(100);
    const ids = jobs.map((j) => j.id);
    const outcomes = await outcomesOf(receiver, ids);
    for (const [i, deliveries] of outcomes.entries()) {
      expect(deliveries).toHaveLength(1);
      const [d] = deliveries;
      expect(d.verified).toBe(true);
      expect(d.body.event).toBe('task.completed');
      expect(d.body.data.sourceURL).toBe(urls[i]);
      const record = await lookup(ids[i]);
      const { event: _event, ...payloadRecord } = d.body as TaskRecord & { event: string };
      expect(payloadRecord).toEqual(record);
      expect(record).toMatchObject({
        taskId: ids[i],
        status: 'completed',
        stacktrace: [],
        params: { url: urls[i], type: 'scrape' },
      });
      expect(typeof record.finishedOn).toBe('number');
      expect(typeof record.processedOn).toBe('number');
    }
    expect(new Set(receiver.deliveries.filter((d) => ids.includes(d.body?.taskId)).map((d) => d.id)).size).toBe(100);
  });

  it('runs a maps batch of 5 queries as one parent job (waiting-children) and delivers one outcome gathering every query', async () => {
    const querys = ['cafe athens', 'bakery paris', 'nowhere', 'museum rome', 'park oslo'];
    const { jobs } = await submit({ kind: 'maps', request: { querys, webhook: `${receiver.url}/maps` } });
    expect(jobs).toHaveLength(1);
    const [parent] = jobs as [BatchJob];
    expect(parent).toMatchObject({
      name: 'maps-batch',
      data: {
        querys,
        ll: '@46.423669,-122.176129,3z',
        hl: 'en',
        start: 0,
        num: 100,
        timeout: 25000,
        webhook: `${receiver.url}/maps`,
      },
      opts: SPEC_OPTS,
      progress: 0,
      attemptsMade: 0,
      queueQualifiedName: `${queuePrefix(QUEUES.batch)}:${QUEUES.batch}`,
    });
    expect((await lookup(parent.id)).status).toBe('waiting-children');
    releaseMaps();
    const [deliveries] = await outcomesOf(receiver, [parent.id]);
    expect(deliveries).toHaveLength(1);
    const [d] = deliveries;
    expect(d.verified).toBe(true);
    expect(d.body.event).toBe('task.completed');
    expect(d.body.data.results.map((r: { query: string }) => r.query)).toEqual(querys);
    expect(d.body.data.results[0]).toMatchObject({ status: 'completed', data: { q: 'cafe athens' } });
    expect(d.body.data.results[2]).toMatchObject({ status: 'failed', error: { code: 'UPSTREAM_NOT_FOUND' } });
    expect(d.body.data).toMatchObject({ completed: 4, failed: 1 });
    const record = await lookup(parent.id);
    const { event: _event, ...payloadRecord } = d.body as TaskRecord & { event: string };
    expect(payloadRecord).toEqual(record);
    expect(record).toMatchObject({ status: 'completed', progress: 100 });
  });

  it('runs a search batch as one parent job whose outcome lists each query with the batch defaults applied', async () => {
    const { jobs } = await submit({
      kind: 'search',
      request: { querys: ['espresso', 'flat white'], webhook: `${receiver.url}/search`, cr: 'countryGR' },
    });
    expect(jobs).toHaveLength(1);
    expect(jobs[0]).toMatchObject({
      name: 'search-batch',
      data: {
        querys: ['espresso', 'flat white'],
        start: 0,
        num: 100,
        hl: 'en',
        gl: 'US',
        cr: 'countryGR',
        timeout: 25000,
      },
      opts: SPEC_OPTS,
    });
    const [[d]] = await outcomesOf(receiver, [jobs[0].id]);
    expect(d.verified).toBe(true);
    expect(d.body).toMatchObject({
      event: 'task.completed',
      data: {
        completed: 2,
        failed: 0,
        results: [
          {
            query: 'espresso',
            status: 'completed',
            data: { results: [{ title: 'result for espresso' }], gl: 'US', num: 100 },
          },
          { query: 'flat white', status: 'completed' },
        ],
      },
    });
  });

  it('passes `meta` to every query of a search batch and to a retail URL task when the batch asks for it', async () => {
    const { jobs: search } = await submit({
      kind: 'search',
      request: { querys: ['ristretto', 'lungo'], webhook: `${receiver.url}/meta`, meta: true },
    });
    expect(search[0]).toMatchObject({ data: { meta: true } });
    const { jobs: plain } = await submit({
      kind: 'search',
      request: { querys: ['doppio'], webhook: `${receiver.url}/meta` },
    });
    expect(plain[0]!.data).not.toHaveProperty('meta');
    const { jobs: retail } = await submit({
      kind: 'url',
      request: {
        urls: ['https://www.amazon.com/dp/B0META0001'],
        type: 'retail',
        webhook: `${receiver.url}/meta`,
        meta: true,
      },
    });
    const [[s], [p], [r]] = await outcomesOf(receiver, [search[0]!.id, plain[0]!.id, retail[0]!.id]);
    expect(s!.body.data.results.map((x: { data: { askedMeta: unknown } }) => x.data.askedMeta)).toEqual([true, true]);
    expect(p!.body.data.results[0].data.askedMeta).toBeNull();
    expect(r!.body).toMatchObject({ event: 'task.completed', data: { askedMeta: true } });
  });

  it('delivers to a receiver that answers 500 three times, with the same webhook-id on every attempt', async () => {
    const { jobs } = await submit({
      kind: 'url',
      request: { urls: ['https://site.test/flaky'], webhook: `${flaky.url}/hook`, type: 'scrape' },
    });
    const [deliveries] = await outcomesOf(flaky, [jobs[0].id]);
    expect(deliveries.map((d) => d.status)).toEqual([500, 500, 500, 200]);
    expect(new Set(deliveries.map((d) => d.id)).size).toBe(1);
    expect(deliveries.every((d) => d.verified)).toBe(true);
  });

  it('fails a page that is not recognised after one attempt, and delivers task.failed', async () => {
    const url = 'https://site.test/unrecognised';
    const { jobs } = await submit({
      kind: 'url',
      request: { urls: [url], webhook: `${receiver.url}/fail`, type: 'scrape' },
    });
    const [[d]] = await outcomesOf(receiver, [jobs[0].id]);
    expect(d.body).toMatchObject({
      event: 'task.failed',
      status: 'failed',
      attemptsMade: 1,
      error: { code: 'PAGE_NOT_RECOGNISED' },
    });
    expect(d.body.stacktrace).toHaveLength(1);
    expect(scrapeCalls.get(url)).toBe(1);
    expect(await lookup(jobs[0].id)).toMatchObject({ status: 'failed', attemptsMade: 1 });
  });

  it('retries a page that times out per the job options (5 attempts) before it fails', async () => {
    const url = 'https://site.test/slow';
    const { jobs } = await submit({
      kind: 'url',
      request: { urls: [url], webhook: `${receiver.url}/slow`, type: 'scrape', timeout: 500 },
    });
    expect(jobs[0].opts).toEqual(SPEC_OPTS);
    const [[d]] = await outcomesOf(receiver, [jobs[0].id]);
    expect(d.body).toMatchObject({
      event: 'task.failed',
      status: 'failed',
      attemptsMade: 5,
      error: { code: 'UPSTREAM_TIMEOUT' },
    });
    expect(scrapeCalls.get(url)).toBe(5);
  }, 60_000);

  it('answers TASK_NOT_FOUND for an id that names no task', async () => {
    await expect(lookup('scrape_00000000-0000-4000-8000-000000000000')).rejects.toMatchObject({
      code: 'TASK_NOT_FOUND',
    });
    await expect(lookup('12345')).rejects.toMatchObject({ code: 'TASK_NOT_FOUND' });
  });

  it("finds a task only for the key that submitted it: another key's lookup is answered as an unknown id", async () => {
    const { jobs } = await submit({
      kind: 'url',
      request: { urls: ['https://site.test/owned'], webhook: `${receiver.url}/owned`, type: 'scrape' },
      apiKeyId: 'owner-key',
    });
    const id = jobs[0].id;
    const get = (apiKeyId?: string) =>
      client.send(SUBJECTS.taskGet, { jobId: id, ...(apiKeyId ? { apiKeyId } : {}) }, { timeoutMs: 5000 });
    expect((await get('owner-key')).taskId).toBe(id);
    const unknownId = id.replace(/[0-9a-f]{4}$/, '0000');
    const asUnknown = await client
      .send(SUBJECTS.taskGet, { jobId: unknownId, apiKeyId: 'owner-key' }, { timeoutMs: 5000 })
      .catch((e: TrawlError) => e);
    for (const other of await Promise.all([
      get('other-key').catch((e: TrawlError) => e),
      get().catch((e: TrawlError) => e),
    ])) {
      expect(other).toBeInstanceOf(TrawlError);
      expect((other as TrawlError).toWire()).toEqual({
        ...(asUnknown as TrawlError).toWire(),
        message: (asUnknown as TrawlError).message.replace(unknownId, id),
      });
    }
  });

  it('refuses bad input at the boundary and creates no job', async () => {
    const before = await totalJobs();
    const hook = `${receiver.url}/x`;
    const cases: [unknown, string, string][] = [
      // A URL batch may come without a webhook (a peer API's batch, read by lookup: ADR 0024), never with a bad one.
      [
        { kind: 'url', request: { urls: ['https://a.test/'], webhook: 'ftp://a.test/hook', type: 'scrape' } },
        'VALIDATION_FAILED',
        'webhook',
      ],
      [
        { kind: 'url', request: { urls: ['https://a.test/'], webhook: hook, type: 'pdf' } },
        'VALIDATION_FAILED',
        'type',
      ],
      [{ kind: 'url', request: { urls: ['not a url'], webhook: hook, type: 'scrape' } }, 'VALIDATION_FAILED', 'urls'],
      [{ kind: 'maps', request: { querys: [], webhook: hook } }, 'VALIDATION_FAILED', 'querys'],
      [{ kind: 'search', request: { querys: ['a'], webhook: hook, gl: 'USA' } }, 'VALIDATION_FAILED', 'gl'],
      [{ kind: 'teleport', request: {} }, 'VALIDATION_FAILED', 'kind'],
      [
        { kind: 'url', request: { urls: ['https://a.test/'], webhook: 'http://10.0.0.1/hook', type: 'scrape' } },
        'URL_NOT_ALLOWED',
        'webhook',
      ],
      [
        {
          kind: 'url',
          request: { urls: ['https://a.test/'], webhook: 'http://169.254.169.254/latest', type: 'scrape' },
        },
        'URL_NOT_ALLOWED',
        'webhook',
      ],
      [{ kind: 'maps', request: { querys: ['a'], webhook: 'http://[::1]:8080/' } }, 'URL_NOT_ALLOWED', 'webhook'],
      // 10,000 job objects (about 4 MB) would not fit in one reply on this NATS (max_payload 1 MB).
      [
        {
          kind: 'url',
          request: {
            urls: Array.from({ length: 10_000 }, (_, i) => `https://a.test/p/${i}`),
            webhook: hook,
            type: 'scrape',
          },
        },
        'PAYLOAD_TOO_LARGE',
        'body',
      ],
    ];
    for (const [payload, code, field] of cases) {
      const err = await submit(payload).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(TrawlError);
      expect(err).toMatchObject({ code, field });
    }
    expect(await totalJobs()).toBe(before);
  });
});
