import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { TrawlApiError, TrawlClient, verifyWebhook, type WebhookPayload } from '@trawl/client';
import {
  eventually,
  startLoopbackHttp,
  startRedis,
  type LoopbackServer,
  type RestartableTestServer,
} from '@trawl/testing';
import { Redis } from 'ioredis';
import { API_KEY, SIGNING_SECRET, signingSecretOf, startStack, type Stack } from './support/stack.js';

const OTHER_KEY = 'system-e2e-other-key';

/**
 * Issue 10, "must show" 3, 4 and 5, through the typed client against the whole stack: idempotent batch submission
 * (a replay gives the same job ids and one webhook per job; another body with the same key is 409), cancellation (a
 * cancelled waiting task never reaches the page, and its outcome arrives as `failed` with TASK_CANCELLED), and
 * `maxAge` (a second call within it does not reach the page; `maxAge: 0` does). The page site counts its requests;
 * one scrape worker, so a slow page keeps the next task waiting.
 */
describe('idempotency, cancel and maxAge (issue 10, must show 3, 4, 5)', () => {
  let site: LoopbackServer;
  let hooks: LoopbackServer;
  let cacheRedis: RestartableTestServer;
  let stack: Stack;
  let trawl: TrawlClient;
  let other: TrawlClient;
  /** Headers of the last response the client `trawl` got. */
  let lastHeaders = new Headers();
  const outcomes: WebhookPayload[] = [];
  const refused: string[] = [];
  /** Requests for /held/* (never answered) whose connection the scraper closed: it gave the page up. */
  const heldClosed: string[] = [];

  /** Requests the site got for a path. */
  const hits = (path: string) => site.requests.filter((r) => r.url === path).length;
  const delivered = (taskId: string) => outcomes.filter((o) => o.taskId === taskId);

  beforeAll(async () => {
    site = await startLoopbackHttp(async (req, res) => {
      // /held/*: never answered; the connection's close is the scraper giving the request up.
      if (req.url?.startsWith('/held/')) {
        res.on('close', () => heldClosed.push(req.url ?? ''));
        return;
      }
      // /slow/* and searches (SEARCH_BASE_URL): answered after 20 s (cancelled long before); anything else at once.
      if (req.url?.startsWith('/slow/') || req.url?.startsWith('/search')) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 20_000);
          res.on('close', () => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      if (res.destroyed) return;
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><html><head><title>${req.url}</title></head><body><p>Page ${req.url}</p></body></html>`);
    });
    hooks = await startLoopbackHttp((req, res, body) => {
      const secret = req.url === '/other' ? signingSecretOf(OTHER_KEY) : SIGNING_SECRET;
      try {
        outcomes.push(verifyWebhook(secret, req.headers, body));
        res.writeHead(204).end();
      } catch (e) {
        refused.push(String(e));
        res.writeHead(400).end();
      }
    });
    // The cache's own Redis, bounded and evicting, as ADR 0016 asks.
    cacheRedis = await startRedis({ persist: false });
    const admin = new Redis(cacheRedis.url);
    await admin.config('SET', 'maxmemory', '32mb');
    await admin.config('SET', 'maxmemory-policy', 'allkeys-lru');
    admin.disconnect();
    stack = await startStack(
      ['gateway', 'task-service', 'webhook-dispatcher', 'extractor-scrape', 'extractor-search'],
      {
        SEARCH_BASE_URL: site.url,
        TASK_CONCURRENCY_SEARCH: '1',
        API_KEYS: `${API_KEY},${OTHER_KEY}`,
        SSRF_ALLOW_HOSTS: '127.0.0.1',
        TASK_SCRAPE_ENGINE: 'http',
        TASK_CONCURRENCY_SCRAPE: '1',
        CACHE_REDIS_URL: cacheRedis.url,
      },
    );
    const recording: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      lastHeaders = res.headers;
      return res;
    };
    trawl = new TrawlClient({ baseUrl: stack.baseUrl, apiKey: API_KEY, fetch: recording });
    other = new TrawlClient({ baseUrl: stack.baseUrl, apiKey: OTHER_KEY });
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
    await cacheRedis?.stop();
    await Promise.all([site?.close(), hooks?.close()]);
  });

  it('a replayed submission gives the same jobs and one webhook per job; another body with the key is 409', async () => {
    const webhook = `${hooks.url}/hook`;
    const body = { urls: [`${site.url}/p/i1`, `${site.url}/p/i2`], type: 'scrape' as const, webhook };
    const first = await trawl.submitUrlBatch(body, { idempotencyKey: 'order-1' });
    // The same body with its fields in another order and a default spelt out is the same request.
    const replay = await trawl.submitUrlBatch(
      { webhook, type: 'scrape', urls: body.urls, timeout: 25000 },
      { idempotencyKey: 'order-1' },
    );
    expect(replay).toEqual(first);
    // Two identical requests racing make one set of jobs.
    const [a, b] = await Promise.all([
      trawl.submitUrlBatch({ ...body, urls: [`${site.url}/p/race`] }, { idempotencyKey: 'order-2' }),
      trawl.submitUrlBatch({ ...body, urls: [`${site.url}/p/race`] }, { idempotencyKey: 'order-2' }),
    ]);
    expect(b?.map((j) => j.id)).toEqual(a?.map((j) => j.id));

    const reused = await trawl
      .submitUrlBatch({ ...body, urls: [`${site.url}/p/other`] }, { idempotencyKey: 'order-1' })
      .catch((e: unknown) => e);
    expect(reused).toBeInstanceOf(TrawlApiError);
    expect(reused).toMatchObject({ status: 409, code: 'IDEMPOTENCY_KEY_REUSED', field: 'Idempotency-Key' });
    const bad = await trawl.submitUrlBatch(body, { idempotencyKey: 'has space' }).catch((e: unknown) => e);
    expect(bad).toMatchObject({ status: 400, code: 'VALIDATION_FAILED', field: 'Idempotency-Key' });
    // Keys are scoped to the API key: another key's same Idempotency-Key is its own submission.
    const others = await other.submitUrlBatch(
      { ...body, webhook: `${hooks.url}/other` },
      { idempotencyKey: 'order-1' },
    );
    expect(others.map((j) => j.id)).not.toEqual(first.map((j) => j.id));

    const ids = [...first, ...(a ?? [])].map((j) => j.id);
    await eventually(() => ids.every((id) => delivered(id).length > 0), 60_000);
    await eventually(() => others.every((j) => delivered(j.id).length > 0), 60_000);
    // Give a duplicate time to show up (none does: nothing ran twice).
    await new Promise((r) => setTimeout(r, 1500));
    for (const id of ids) expect(delivered(id).map((o) => o.status)).toEqual(['completed']);
    expect([hits('/p/i1'), hits('/p/i2'), hits('/p/race'), hits('/p/other')]).toEqual([2, 2, 1, 0]);
    expect(refused).toEqual([]);
  }, 120_000);

  it('a cancelled waiting task never reaches the page; a cancelled running one stops; both fail as TASK_CANCELLED', async () => {
    const webhook = `${hooks.url}/hook`;
    const [slow] = await trawl.submitUrlBatch({ urls: [`${site.url}/slow/1`], type: 'scrape', webhook });
    // The one scrape worker is busy with the slow page, so the next task waits.
    await eventually(() => hits('/slow/1') === 1, 30_000);
    const [waiting] = await trawl.submitUrlBatch({ urls: [`${site.url}/p/never`], type: 'scrape', webhook });
    expect((await trawl.getTask(waiting!.id)).status).toBe('waiting');

    const cancelled = await trawl.cancelTask(waiting!.id);
    expect(cancelled.taskId).toBe(waiting!.id);
    // Another key's task is not found, as lookup answers.
    await expect(other.cancelTask(slow!.id)).rejects.toMatchObject({ status: 404, code: 'TASK_NOT_FOUND' });

    const stopped = await trawl.cancelTask(slow!.id);
    expect(stopped.taskId).toBe(slow!.id);
    await eventually(() => delivered(slow!.id).length > 0 && delivered(waiting!.id).length > 0, 30_000);
    for (const task of [slow!, waiting!]) {
      const [outcome] = delivered(task.id);
      expect(outcome).toMatchObject({ event: 'task.failed', status: 'failed', data: null });
      expect(outcome?.error).toMatchObject({ code: 'TASK_CANCELLED', retryable: false });
      const record = await trawl.getTask(task.id);
      expect(record.status).toBe('failed');
      expect(record.error?.code).toBe('TASK_CANCELLED');
    }
    expect(hits('/p/never')).toBe(0);
    expect(hits('/slow/1')).toBe(1);
    // A finished task cannot be cancelled.
    await expect(trawl.cancelTask(waiting!.id)).rejects.toMatchObject({ status: 409, code: 'TASK_FINISHED' });
    expect(delivered(waiting!.id)).toHaveLength(1);
  }, 90_000);

  /** extractor-scrape's `trawl_nats_server_requests_total{outcome="abandoned"}` (its /metrics). */
  async function abandonedAtExtractor(): Promise<number> {
    const text = await (await fetch(`http://127.0.0.1:${stack.metricsPorts.get('extractor-scrape')}/metrics`)).text();
    return Number(/^trawl_nats_server_requests_total\{[^}]*outcome="abandoned"[^}]*\} (\d+)$/m.exec(text)?.[1] ?? 0);
  }

  it('a cancelled running scrape stops at the extractor: its page is given up long before its timeout, in either engine (ADR 0043)', async () => {
    const webhook = `${hooks.url}/hook`;
    let abandoned = await abandonedAtExtractor();
    for (const [path, engine] of [
      ['/held/http', 'http'],
      ['/held/browser', 'browser'],
    ] as const) {
      // The longest timeout there is: without the abandon, the page would be held for two minutes.
      const [task] = await trawl.submitUrlBatch({
        urls: [`${site.url}${path}`],
        type: 'scrape',
        engine,
        timeout: 120_000,
        webhook,
      });
      await eventually(() => hits(path) === 1, 60_000);
      // Asked by the engine named: Chromium's navigation says what it fetches, the HTTP client does not.
      const asked = site.requests.find((r) => r.url === path);
      expect({ path, dest: asked?.headers['sec-fetch-dest'] }).toEqual({
        path,
        dest: engine === 'browser' ? 'document' : undefined,
      });
      expect(heldClosed).not.toContain(path);
      await trawl.cancelTask(task!.id);
      // The extractor closed the page's connection (its fetch aborted, its browser context closed) once told.
      await eventually(() => heldClosed.includes(path), 60_000);
      // Counted where operators see it.
      expect(await abandonedAtExtractor()).toBe(++abandoned);
      await eventually(() => delivered(task!.id).length > 0, 30_000);
      expect(delivered(task!.id)[0]?.error).toMatchObject({ code: 'TASK_CANCELLED' });
      expect(hits(path)).toBe(1);
    }
  }, 240_000);

  it('a synchronous scrape whose client hangs up is abandoned: the extractor gives the page up (ADR 0043)', async () => {
    for (const [route, path, body] of [
      ['/scrape', '/held/sync-scrape', { formats: ['markdown'] }],
      ['/extract', '/held/sync-extract', { type: 'scrape' }],
    ] as const) {
      const hangUp = new AbortController();
      const call = fetch(`${stack.baseUrl}${route}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': API_KEY },
        body: JSON.stringify({ url: `${site.url}${path}`, timeout: 120_000, ...body }),
        signal: hangUp.signal,
      }).catch((e: unknown) => e);
      await eventually(() => hits(path) === 1, 60_000);
      expect(heldClosed).not.toContain(path);
      hangUp.abort();
      expect(await call).toMatchObject({ name: 'AbortError' });
      await eventually(() => heldClosed.includes(path), 60_000);
      expect(hits(path)).toBe(1);
    }
  }, 180_000);

  it('a cancelled batch cancels its queries: the waiting ones never reach the upstream, one TASK_CANCELLED webhook', async () => {
    const webhook = `${hooks.url}/hook`;
    const searches = () => site.requests.filter((r) => r.url.startsWith('/search')).length;
    const [batch] = await trawl.submitSearchBatch({ querys: ['q one', 'q two', 'q three'], engine: 'http', webhook });
    // One search worker: the first query is at the upstream, the other two wait.
    await eventually(() => searches() === 1, 30_000);
    await trawl.cancelTask(batch!.id);
    await eventually(() => delivered(batch!.id).length > 0, 30_000);
    const [outcome] = delivered(batch!.id);
    expect(outcome).toMatchObject({ event: 'task.failed', status: 'failed', data: null });
    expect(outcome?.error?.code).toBe('TASK_CANCELLED');
    expect((await trawl.getTask(batch!.id)).error?.code).toBe('TASK_CANCELLED');
    await new Promise((r) => setTimeout(r, 1000));
    expect(searches()).toBe(1);
    expect(delivered(batch!.id)).toHaveLength(1);
  }, 90_000);

  it('maxAge: a second call within it does not reach the page, with its age in headers; maxAge 0 does', async () => {
    const url = `${site.url}/p/fresh`;
    const first = await trawl.scrape({ url, formats: ['markdown'], engine: 'http', maxAge: 60_000 });
    expect(lastHeaders.get('x-trawl-cache')).toBe('miss');
    expect(hits('/p/fresh')).toBe(1);

    const second = await trawl.scrape({ url, engine: 'http', formats: ['markdown'], maxAge: 60_000 });
    expect(second).toEqual(first);
    expect(hits('/p/fresh')).toBe(1);
    expect(lastHeaders.get('x-trawl-cache')).toBe('hit');
    expect(Number(lastHeaders.get('age'))).toBeGreaterThanOrEqual(0);
    expect(Number(lastHeaders.get('x-trawl-cache-age-ms'))).toBeGreaterThanOrEqual(0);

    await trawl.scrape({ url, formats: ['markdown'], engine: 'http', maxAge: 0 });
    expect(hits('/p/fresh')).toBe(2);
    expect(lastHeaders.get('x-trawl-cache')).toBe('miss');
    // Without maxAge the operation's default applies (0 here): the page is asked again.
    await trawl.scrape({ url, formats: ['markdown'], engine: 'http' });
    expect(hits('/p/fresh')).toBe(3);
    // Another key does not share the first key's stored results.
    await other.scrape({ url, formats: ['markdown'], engine: 'http', maxAge: 60_000 });
    expect(hits('/p/fresh')).toBe(4);
    // Bounds: maxAge is an integer 0 … 86400000.
    await expect(trawl.scrape({ url, maxAge: 86_400_001 })).rejects.toMatchObject({
      status: 400,
      code: 'VALIDATION_FAILED',
      field: 'maxAge',
    });
  }, 60_000);
});
