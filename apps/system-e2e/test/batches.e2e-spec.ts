import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startBuiltSimulator, startLoopbackHttp, type LoopbackServer, type RunningSimulator } from '@trawl/testing';
import { callApi, SIGNING_SECRET, startStack, type Stack } from './support/stack.js';
import { startWebhookReceiver, type Delivery, type WebhookReceiver } from './support/webhook-receiver.js';

/**
 * An article page (as scrape-content.e2e-spec.ts's): a story between site furniture. The `X-Probe` header the page
 * was asked with is written into its headline, so a task's markdown shows the headers reached the page.
 */
function articlePage(probe: string | undefined): string {
  const paragraph =
    'The council voted on Tuesday to extend the tram line to the airport, a project of 14 km that will cost, ' +
    'by its own estimate, 640 million euros and open in 2029.';
  return `<!doctype html><html lang="en-GB"><head><title>Tram line approved</title></head><body>
<header><a href="/">Daily Ledger</a><ul class="menu"><li><a href="/news">News</a></li><li><a href="/sport">Sport</a></li></ul></header>
<div class="cookie-banner">We use cookies. <a href="/privacy">Privacy</a></div>
<div class="layout"><div class="story"><h1>Tram line approved, probe ${probe ?? 'none'}</h1>${`<p>${paragraph}</p>`.repeat(6)}
<div class="share-bar"><a href="https://social.example/share">Share this story</a></div></div>
<div class="sidebar"><h3>Most read</h3><ul><li><a href="/a">Heatwave warning</a></li><li><a href="/b">Bakery award</a></li></ul></div></div>
<footer><p>© 2026 Daily Ledger. All rights reserved.</p></footer></body></html>`;
}

const SPEC_OPTS = {
  attempts: 5,
  removeOnComplete: 300000,
  removeOnFail: 100000,
  backoff: { type: 'fixed', delay: 1000 },
};

/**
 * Issue 4, "must show": asynchronous batches through the whole system. The gateway, task-service,
 * webhook-dispatcher, extractor-scrape and extractor-maps run as processes on real Redis and NATS (JetStream); pages
 * come from a loopback server, maps from the upstream simulator (a process), and outcomes go to loopback receivers
 * that verify each signature with the standardwebhooks library.
 */
describe('asynchronous batches through the whole stack (processes, real Redis and NATS)', () => {
  let simulator: RunningSimulator;
  let site: LoopbackServer;
  let receiver: WebhookReceiver;
  let flaky: WebhookReceiver;
  let stack: Stack;

  beforeAll(async () => {
    simulator = await startBuiltSimulator();
    site = await startLoopbackHttp((req, res) => {
      const path = req.url ?? '/';
      if (path.startsWith('/hang')) return; // never answers (closed with the server)
      if (path.startsWith('/article/')) {
        const probe = req.headers['x-probe'];
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(articlePage(typeof probe === 'string' ? probe : undefined));
        return;
      }
      const found = path.startsWith('/p/');
      res.writeHead(found ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
      res.end(
        found
          ? `<!doctype html><html><head><title>Page ${path}</title></head><body><h1>Page ${path}</h1></body></html>`
          : '<!doctype html><html><head><title>Not found</title></head><body><h1>Not found</h1></body></html>',
      );
    });
    receiver = await startWebhookReceiver(SIGNING_SECRET);
    flaky = await startWebhookReceiver(SIGNING_SECRET, (attempt) => (attempt <= 3 ? 500 : 200));
    stack = await startStack(['gateway', 'task-service', 'webhook-dispatcher', 'extractor-scrape', 'extractor-maps'], {
      SSRF_ALLOW_HOSTS: '127.0.0.1',
      MAPS_BASE_URL: simulator.url,
      TASK_SCRAPE_ENGINE: 'http',
      TASK_CONCURRENCY_SCRAPE: '16',
      WEBHOOK_RETRY_SCHEDULE: '100ms,100ms,100ms,100ms',
    });
  });

  afterAll(async () => {
    await stack?.stop();
    await simulator?.stop();
    await Promise.all([site?.close(), receiver?.close(), flaky?.close()]);
  });

  /** The record GET /extractTask/{id} answers, through the gateway. */
  async function lookup(id: string) {
    const res = await callApi(stack, 'GET', `/extractTask/${encodeURIComponent(id)}`);
    expect(res.status).toBe(200);
    return res.body.data;
  }

  /** The webhook payload is the task record plus `event`; task lookup must answer the same record. */
  async function expectLookupAgrees(d: Delivery): Promise<void> {
    const { event: _event, ...payloadRecord } = d.body;
    expect(await lookup(d.body.taskId)).toEqual(payloadRecord);
  }

  async function submitUrls(urls: string[], webhook: string, extra: Record<string, unknown> = {}) {
    const res = await callApi(stack, 'POST', '/extractTask/batch', { urls, webhook, type: 'scrape', ...extra });
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(urls.length);
    return res.body.data as { id: string; opts: unknown; attemptsMade: number }[];
  }

  it('delivers exactly one signed outcome per task of a 100-URL batch and a 5-query maps batch, and task lookup agrees with each', async () => {
    const urls = Array.from({ length: 100 }, (_, i) => `${site.url}/p/${i}`);
    const [urlJobs, mapsRes] = await Promise.all([
      submitUrls(urls, `${receiver.url}/urls`),
      callApi(stack, 'POST', '/extractTask/batch/maps', {
        querys: ['coffee athens', 'museum of modern art', 'bike repair berlin', 'bakery paris', 'park oslo'],
        webhook: `${receiver.url}/maps`,
        num: 20,
      }),
    ]);
    expect(mapsRes.status).toBe(200);
    expect(mapsRes.body.data).toHaveLength(1);
    const mapsJob = mapsRes.body.data[0];
    expect(mapsJob).toMatchObject({ name: 'maps-batch', opts: SPEC_OPTS, attemptsMade: 0, progress: 0 });
    for (const job of urlJobs) expect(job).toMatchObject({ opts: SPEC_OPTS, attemptsMade: 0 });

    const ids = [...urlJobs.map((j) => j.id), mapsJob.id as string];
    const outcomes = await receiver.outcomesOf(ids, 90_000);
    for (const [i, deliveries] of outcomes.entries()) {
      expect(deliveries).toHaveLength(1);
      const [d] = deliveries;
      expect(d.verified).toBe(true);
      expect(d.status).toBe(200);
      expect(d.body).toMatchObject({ event: 'task.completed', status: 'completed', attemptsMade: 1, stacktrace: [] });
      if (i < urls.length) {
        expect(d.body.params).toMatchObject({ url: urls[i], type: 'scrape' });
        expect(d.body.data).toMatchObject({ sourceURL: urls[i], status: 200, rawStatus: 200 });
        expect(d.body.data.markdown).toContain(`# Page /p/${i}`);
      } else {
        expect(d.body.data).toMatchObject({ completed: 5, failed: 0 });
        expect(d.body.data.results.map((r: { query: string }) => r.query)).toEqual(mapsJob.data.querys);
        for (const r of d.body.data.results) {
          expect(r.status).toBe('completed');
          // Each query's result is the maps search result, as POST /extract/search/maps answers it.
          expect(r.data.data.searchParameters).toMatchObject({ q: r.query });
          expect(r.data.data.organicResults).toHaveLength(20);
          expect(r.data.data.organicResults[0].name.length).toBeGreaterThan(0);
        }
      }
      await expectLookupAgrees(d);
    }
    // One webhook-id per task, and none shared between tasks.
    expect(new Set(outcomes.map(([d]) => d.id)).size).toBe(ids.length);
  }, 120_000);

  it('delivers to a receiver that answers 500 three times, with the same webhook-id on every attempt', async () => {
    const [job] = await submitUrls([`${site.url}/p/flaky`], `${flaky.url}/hook`);
    const [deliveries] = await flaky.outcomesOf([job.id]);
    expect(deliveries.map((d) => d.status)).toEqual([500, 500, 500, 200]);
    expect(new Set(deliveries.map((d) => d.id)).size).toBe(1);
    expect(deliveries.every((d) => d.verified)).toBe(true);
    expect(deliveries[3].body).toMatchObject({ event: 'task.completed', taskId: job.id });
    await expectLookupAgrees(deliveries[3]);
  });

  it('completes a page answered with 404 after one attempt (a result with rawStatus 404, not an error)', async () => {
    const [job] = await submitUrls([`${site.url}/missing`], `${receiver.url}/404`);
    const [[d]] = await receiver.outcomesOf([job.id]);
    expect(d.body).toMatchObject({
      event: 'task.completed',
      attemptsMade: 1,
      data: { rawStatus: 404, status: 200, sourceURL: `${site.url}/missing` },
    });
    expect(site.requests.filter((r) => r.url === '/missing')).toHaveLength(1);
    await expectLookupAgrees(d);
  });

  it('fails a task whose page may never be fetched (a private address) after one attempt', async () => {
    const [job] = await submitUrls(['http://10.0.0.1/private'], `${receiver.url}/refused`);
    const [deliveries] = await receiver.outcomesOf([job.id]);
    expect(deliveries).toHaveLength(1);
    const [d] = deliveries;
    expect(d.verified).toBe(true);
    expect(d.body).toMatchObject({
      event: 'task.failed',
      status: 'failed',
      attemptsMade: 1,
      data: null,
      error: { code: 'URL_NOT_ALLOWED', retryable: false },
    });
    expect(d.body.stacktrace).toHaveLength(1);
    await expectLookupAgrees(d);
  });

  it('retries a page that times out per the job options (5 attempts, fixed backoff) and then fails it', async () => {
    const [job] = await submitUrls([`${site.url}/hang`], `${receiver.url}/slow`, { timeout: 500 });
    expect(job.opts).toEqual(SPEC_OPTS);
    const [deliveries] = await receiver.outcomesOf([job.id], 60_000);
    expect(deliveries).toHaveLength(1);
    const [d] = deliveries;
    expect(d.verified).toBe(true);
    expect(d.body).toMatchObject({
      event: 'task.failed',
      status: 'failed',
      attemptsMade: 5,
      error: { code: 'UPSTREAM_TIMEOUT', retryable: true },
    });
    expect(d.body.stacktrace).toHaveLength(5);
    expect(site.requests.filter((r) => r.url === '/hang')).toHaveLength(5);
    await expectLookupAgrees(d);
  }, 90_000);

  it("carries /scrape's page options to every task of a URL batch: main content, whole page, tags, headers", async () => {
    const article = (name: string) => `${site.url}/article/${name}`;
    const batches = {
      main: { urls: [article('main-1'), article('main-2')], scrapeOptions: undefined },
      whole: { urls: [article('whole-1')], scrapeOptions: { onlyMainContent: false } },
      picked: {
        urls: [article('picked-1')],
        scrapeOptions: { includeTags: ['h1', '.sidebar'], formats: ['markdown'] },
      },
      dropped: {
        urls: [article('dropped-1')],
        scrapeOptions: { onlyMainContent: false, excludeTags: ['header', 'footer', '.cookie-banner'] },
      },
      probed: { urls: [article('probed-1'), article('probed-2')], scrapeOptions: { headers: { 'X-Probe': 'b-7' } } },
    };
    const submitted = await Promise.all(
      Object.values(batches).map(({ urls, scrapeOptions }) =>
        submitUrls(urls, `${receiver.url}/options`, scrapeOptions ? { scrapeOptions } : {}),
      ),
    );
    // Each job carries its batch's options (echoed as stored).
    for (const [i, { scrapeOptions }] of Object.values(batches).entries())
      for (const job of submitted[i] as unknown as { data: { scrapeOptions?: unknown } }[])
        expect(job.data.scrapeOptions).toEqual(scrapeOptions);
    const outcomes = await receiver.outcomesOf(
      submitted.flat().map((j) => j.id),
      90_000,
    );
    const markdownOf = new Map<string, string>();
    for (const [d] of outcomes) {
      expect(d.body).toMatchObject({ event: 'task.completed', status: 'completed' });
      markdownOf.set(d.body.params.url as string, d.body.data.markdown as string);
      await expectLookupAgrees(d);
    }
    const furniture = ['Sport', 'We use cookies', 'Share this story', 'Most read', 'All rights reserved'];
    for (const url of batches.main.urls) {
      const md = markdownOf.get(url) ?? '';
      expect(md).toContain('# Tram line approved, probe none');
      expect(md).toContain('640 million euros');
      for (const f of furniture) expect(md).not.toContain(f);
    }
    const whole = markdownOf.get(batches.whole.urls[0]) ?? '';
    for (const f of ['Sport', 'We use cookies', 'Most read', 'All rights reserved']) expect(whole).toContain(f);
    expect(markdownOf.get(batches.picked.urls[0])).toBe(
      // Link URLs are absolute against the page (ADR 0003), as on /scrape.
      `# Tram line approved, probe none\n\n### Most read\n\n-   [Heatwave warning](${site.url}/a)\n` +
        `-   [Bakery award](${site.url}/b)`,
    );
    const dropped = markdownOf.get(batches.dropped.urls[0]) ?? '';
    expect(dropped).toContain('Most read');
    for (const gone of ['Sport', 'We use cookies', 'All rights reserved']) expect(dropped).not.toContain(gone);
    for (const url of batches.probed.urls) {
      expect(markdownOf.get(url)).toContain('# Tram line approved, probe b-7');
      const path = new URL(url).pathname;
      const asked = site.requests.filter((r) => r.url === path);
      expect(asked.length).toBeGreaterThan(0);
      for (const r of asked) expect(r.headers['x-probe']).toBe('b-7');
    }
    // Without headers, none is sent.
    for (const r of site.requests.filter((q) => q.url === '/article/main-1'))
      expect(r.headers['x-probe']).toBeUndefined();
  }, 120_000);

  it('refuses misused page options of a URL batch with the envelope error naming scrapeOptions; nothing runs', async () => {
    const refused: [Record<string, unknown>, RegExp][] = [
      [{ includeTags: 'h1' }, /scrapeOptions\.includeTags/],
      [{ onlyMainContent: 'no' }, /scrapeOptions\.onlyMainContent must be a boolean/],
      [{ headers: { Host: 'other.test' } }, /scrapeOptions\.headers may not set Host/],
      [{ waitFor: 600_000 }, /scrapeOptions\.waitFor/],
      [{ maxAge: 1000 }, /scrapeOptions\.maxAge is not a page option/],
    ];
    for (const [scrapeOptions, message] of refused) {
      const res = await callApi(stack, 'POST', '/extractTask/batch', {
        urls: [`${site.url}/article/refused`],
        webhook: `${receiver.url}/refused-options`,
        type: 'scrape',
        scrapeOptions,
      });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ data: { error: 'VALIDATION_FAILED', field: 'scrapeOptions' } });
      expect(String(res.body.message)).toMatch(message);
    }
    expect(site.requests.filter((r) => r.url === '/article/refused')).toEqual([]);
  });

  it('serves a task asking for a screenshot with the browser, though the configured task engine is http', async () => {
    const [job] = await submitUrls([`${site.url}/article/shot`], `${receiver.url}/shot`, {
      scrapeOptions: { formats: ['markdown', 'screenshot'], blockAds: false },
    });
    const [[d]] = await receiver.outcomesOf([job.id], 90_000);
    expect(d.body).toMatchObject({ event: 'task.completed', data: { metadata: { engine: 'browser' } } });
    expect(d.body.data.screenshot).toMatch(/^data:image\/png;base64,/);
    expect(d.body.data.markdown).toContain('# Tram line approved, probe none');
  }, 120_000);
});
