import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { NatsConnection } from '@nats-io/nats-core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { loadEnv, GatewayEnv } from '@trawl/config';
import {
  SUBJECTS,
  TrawlError,
  type MapsSearchResponse,
  type ScrapeResult,
  type TaskRecord,
  type WebSearchResult,
} from '@trawl/contracts';
import { connectNats } from '@trawl/messaging';
import { serveSubject, startNats, type TestServer } from '@trawl/testing';
import { createGatewayApp } from '../src/gateway-app.factory.js';

const KEY = 'mcp-key-a';

/**
 * Issue 22: MCP at /mcp over streamable HTTP, driven by the official SDK's client (1.32.2): initialize, list the
 * tools (input and output schemas), call each; the key as Bearer or x-api-key; stand-in extractors on real NATS.
 */
describe('MCP server (in-process gateway, real NATS, MCP SDK client)', () => {
  let nats: TestServer;
  let nc: NatsConnection;
  let app: NestFastifyApplication;
  let base = '';
  let client: Client;
  const tasks = new Map<string, { owner: string; record: TaskRecord; polls: number }>();

  const scrapeResult = (url: string): ScrapeResult => ({
    sourceURL: url,
    taskId: 't',
    edgeId: 'e',
    status: 200,
    rawStatus: 200,
    markdown: `# MCP ${new URL(url).pathname}`,
    metadata: { title: 'MCP page', url, engine: 'http', contentType: 'text/html' },
  });

  /** Every crawl plan and crawl start the stand-ins received, in order. */
  const plans: Record<string, unknown>[] = [];
  const crawlStarts: Record<string, unknown>[] = [];
  /** Every scrape request the stand-in extractor received, in order. */
  const scrapes: Record<string, unknown>[] = [];
  /** A 1×1 PNG, as the browser engine answers a screenshot: a data URL. */
  const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
  const richResult = (url: string): ScrapeResult => ({
    ...scrapeResult(url),
    links: ['http://127.0.0.1:9/a', 'http://127.0.0.1:9/b'],
    screenshot: `data:image/png;base64,${PNG}`,
    summary: 'A page about kettles.',
    json: { name: 'Kettle', price: 39.9 },
  });

  beforeAll(async () => {
    nats = await startNats();
    nc = await connectNats([nats.url], 'stand-ins');
    serveSubject(nc, SUBJECTS.scrapePage, (data) => {
      const url = (data as { url: string }).url;
      scrapes.push(data as Record<string, unknown>);
      if (url.includes('blocked')) throw new TrawlError('UPSTREAM_BLOCKED', 'the site answered with a captcha');
      if (url.includes('rich')) return richResult(url);
      return scrapeResult(url);
    });
    serveSubject(nc, SUBJECTS.searchWeb, () => {
      const result: Partial<WebSearchResult> = {
        knowledgePanel: null,
        peopleAlsoAsk: [],
        relatedSearches: [],
        results: [1, 2, 3, 4, 5, 6].map((i) => ({
          date: '',
          displayLink: '',
          domain: '',
          favicon: '',
          link: `http://127.0.0.1:9/r${i}`,
          realPosition: i,
          sitelinks: { inline: [], table: [] },
          snippet: `S${i}`,
          snippetHighlightedWords: [],
          source: '',
          title: `R${i}`,
        })),
      };
      return result;
    });
    serveSubject(nc, SUBJECTS.searchMaps, () => {
      const response = {
        data: {
          organicResults: [
            {
              name: 'Cafe',
              place_id: 'ChIJcafe',
              address: '1 Main St',
              rating: 4.5,
              number_of_reviews: 10,
              mp_category: ['Cafe'],
              mp_phone: null,
              website: '',
              latitude: 1,
              longitude: 2,
              mp_maps_url: 'https://www.google.com/maps/place/cafe',
            },
          ],
        },
      } as unknown as MapsSearchResponse;
      return response;
    });
    serveSubject(nc, SUBJECTS.extractRetail, () => ({ title: 'A product', price: 9.99 }));
    serveSubject(nc, SUBJECTS.extractPlace, () => ({ mp_company_name: 'A place' }));
    // task-service stand-in: a task completes on its third lookup (so batch_scrape waits and reports progress).
    serveSubject(nc, SUBJECTS.taskSubmit, (data) => {
      const req = data as { apiKeyId: string; request: { urls: string[] } };
      const jobs = req.request.urls.map((url, i) => {
        const id = `scrape_mcp_${tasks.size}_${i}`;
        tasks.set(id, {
          owner: req.apiKeyId,
          polls: 0,
          record: {
            taskId: id,
            status: 'waiting',
            params: { url },
            data: null,
            progress: 0,
            attemptsMade: 0,
            finishedOn: null,
            processedOn: null,
            stacktrace: [],
          },
        });
        return { id };
      });
      return { jobs };
    });
    serveSubject(nc, SUBJECTS.taskGet, (data) => {
      const { jobId, apiKeyId } = data as { jobId: string; apiKeyId: string };
      const task = tasks.get(jobId);
      if (!task || task.owner !== apiKeyId) throw new TrawlError('TASK_NOT_FOUND', 'not found');
      task.polls += 1;
      if (task.polls >= 3) {
        task.record = { ...task.record, status: 'completed', data: scrapeResult(String(task.record.params.url)) };
      }
      return task.record;
    });
    // task-service's map and crawl and extractor-scrape's planner, for a crawl planned from a prompt (ADR 0042).
    serveSubject(nc, SUBJECTS.mapSite, (data) => {
      const { url } = (data as { request: { url: string } }).request;
      return { links: ['', 'docs/a', 'docs/b', 'blog/c'].map((p) => ({ url: new URL(p, url).href })) };
    });
    serveSubject(nc, SUBJECTS.crawlPlan, (data) => {
      plans.push(data as Record<string, unknown>);
      return {
        url: (data as { url: string }).url,
        options: { includePaths: ['^/docs/'], limit: 20, delay: 500 },
        warnings: ['maxConcurrency: not an option a crawl plan sets; ignored'],
      };
    });
    serveSubject(nc, SUBJECTS.crawlStart, (data) => {
      crawlStarts.push(data as Record<string, unknown>);
      return { id: 'c'.repeat(32) };
    });
    serveSubject(nc, SUBJECTS.crawlGet, (data) => ({
      id: (data as { id: string }).id,
      status: 'completed',
      total: 0,
      completed: 0,
      documents: 0,
      data: [],
      cursor: null,
    }));
    await nc.flush();
    const env = loadEnv(GatewayEnv, { NATS_URL: nats.url, API_KEYS: `${KEY},mcp-key-b` });
    app = await createGatewayApp(env, { logger: false, swaggerUi: false });
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = await app.getUrl();
    client = new Client({ name: 'trawl-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${KEY}` } },
      }),
    );
  });

  afterAll(async () => {
    await client?.close();
    await app?.close();
    await nc?.close();
    await nats?.stop();
  });

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- structured content as the client returns it
  type Structured = any;

  it('initializes and lists the tools with input and output schemas', async () => {
    expect(client.getServerVersion()).toMatchObject({ name: 'trawl' });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      'batch_scrape',
      'batch_status',
      'crawl',
      'crawl_cancel',
      'crawl_status',
      'extract',
      'map',
      'maps_search',
      'scrape',
      'search',
    ]);
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type).toBe('object');
    }
  });

  it('crawl with a prompt: planned from the site’s map, the plan merged under the caller’s options, Firecrawl’s scope', async () => {
    const res = await client.callTool({
      name: 'crawl',
      arguments: { url: 'http://127.0.0.1:9/', prompt: 'only the docs', limit: 5 },
    });
    expect(res.isError).toBeFalsy();
    // The planner was asked with the map's URLs, Firecrawl's default scope and the caller's key.
    expect(plans.at(-1)).toEqual({
      url: 'http://127.0.0.1:9/',
      prompt: 'only the docs',
      scope: 'path',
      siteUrls: [
        'http://127.0.0.1:9/',
        'http://127.0.0.1:9/docs/a',
        'http://127.0.0.1:9/docs/b',
        'http://127.0.0.1:9/blog/c',
      ],
      apiKeyId: expect.any(String),
    });
    // task-service was asked for a crawl on options: the plan's, the caller's limit kept, Firecrawl's delay in seconds
    // back to ms, no prompt.
    const { request } = crawlStarts.at(-1) as { request: Record<string, unknown> };
    expect(request).toMatchObject({ url: 'http://127.0.0.1:9/', includePaths: ['^/docs/'], limit: 5, delay: 500 });
    expect(request.prompt).toBeUndefined();
    expect((res.structuredContent as Structured).warning).toContain(
      'prompt: maxConcurrency: not an option a crawl plan sets; ignored',
    );
  });

  it('scrape: markdown as text and the document as structuredContent', async () => {
    const res = await client.callTool({ name: 'scrape', arguments: { url: 'http://127.0.0.1:9/page' } });
    expect(res.isError).toBeFalsy();
    expect(res.content).toEqual([{ type: 'text', text: '# MCP /page' }]);
    expect((res.structuredContent as Structured).document.metadata).toMatchObject({
      sourceURL: 'http://127.0.0.1:9/page',
      statusCode: 200,
    });
  });

  it("scrape: Firecrawl's options reach the scrape, and each format asked for is its own content (the screenshot an image)", async () => {
    const args = {
      url: 'http://127.0.0.1:9/rich',
      formats: [
        'markdown',
        'links',
        { type: 'screenshot', fullPage: true },
        'summary',
        { type: 'json', prompt: 'the product' },
      ],
      onlyMainContent: false,
      includeTags: ['article'],
      excludeTags: ['.ads'],
      mobile: true,
      location: { country: 'DE', languages: ['de-DE'] },
      actions: [
        { type: 'click', selector: '#more' },
        { type: 'wait', milliseconds: 100 },
      ],
      blockAds: false,
    };
    const res = await client.callTool({ name: 'scrape', arguments: args });
    expect(res.isError).toBeFalsy();
    expect(scrapes.at(-1)).toMatchObject({
      url: 'http://127.0.0.1:9/rich',
      formats: expect.arrayContaining(['markdown', 'links', { type: 'screenshot', fullPage: true }, 'summary']),
      onlyMainContent: false,
      includeTags: ['article'],
      excludeTags: ['.ads'],
      mobile: true,
      location: { country: 'DE', languages: ['de-DE'] },
      actions: [
        { type: 'click', selector: '#more' },
        { type: 'wait', milliseconds: 100 },
      ],
      blockAds: false,
    });
    expect(res.content).toEqual([
      { type: 'text', text: '# MCP /rich' },
      { type: 'text', text: 'Summary:\nA page about kettles.' },
      { type: 'text', text: '```json\n{\n  "name": "Kettle",\n  "price": 39.9\n}\n```' },
      { type: 'text', text: 'Links:\n- http://127.0.0.1:9/a\n- http://127.0.0.1:9/b' },
      { type: 'image', data: PNG, mimeType: 'image/png' },
    ]);
    expect((res.structuredContent as Structured).document).toMatchObject({
      links: ['http://127.0.0.1:9/a', 'http://127.0.0.1:9/b'],
      json: { name: 'Kettle', price: 39.9 },
    });
  });

  it('scrape: an unknown format or a misspelt option is refused before anything is scraped', async () => {
    const before = scrapes.length;
    const unknown = await client.callTool({
      name: 'scrape',
      arguments: { url: 'http://127.0.0.1:9/x', formats: ['pdf'] },
    });
    expect(unknown.isError).toBe(true);
    expect((unknown.content as { text: string }[])[0]?.text).toMatch(/formats/);
    const badLocation = await client.callTool({
      name: 'scrape',
      arguments: { url: 'http://127.0.0.1:9/x', location: { languages: 'de' } },
    });
    expect(badLocation.isError).toBe(true);
    expect(scrapes.length).toBe(before);
  });

  it('scrape: a failure is a tool error the model reads, with the code', async () => {
    const res = await client.callTool({ name: 'scrape', arguments: { url: 'http://127.0.0.1:9/blocked' } });
    expect(res.isError).toBe(true);
    expect((res.content as { text: string }[])[0]?.text).toContain('UPSTREAM_BLOCKED');
  });

  it('search, maps_search and extract (retail, place)', async () => {
    const search = await client.callTool({ name: 'search', arguments: { query: 'coffee', limit: 2 } });
    expect((search.structuredContent as Structured).web).toHaveLength(2);
    expect((search.content as { text: string }[])[0]?.text).toContain('[R1](http://127.0.0.1:9/r1)');

    const maps = await client.callTool({ name: 'maps_search', arguments: { q: 'coffee' } });
    expect((maps.structuredContent as Structured).places[0]).toMatchObject({ title: 'Cafe', placeId: 'ChIJcafe' });

    const retail = await client.callTool({
      name: 'extract',
      arguments: { type: 'retail', url: 'http://127.0.0.1:9/dp/B0' },
    });
    expect((retail.structuredContent as Structured).record).toEqual({ title: 'A product', price: 9.99 });
    const placeRes = await client.callTool({
      name: 'extract',
      arguments: { type: 'place', url: 'http://127.0.0.1:9/maps/place/x' },
    });
    expect((placeRes.structuredContent as Structured).record).toEqual({ mp_company_name: 'A place' });
  });

  it('batch_scrape waits with progress notifications; batch_status reads it; another key gets an error', async () => {
    const progress: number[] = [];
    const res = await client.callTool(
      {
        name: 'batch_scrape',
        arguments: { urls: ['http://127.0.0.1:9/b1', 'http://127.0.0.1:9/b2'], waitSeconds: 30 },
      },
      undefined,
      { onprogress: (p) => progress.push(p.progress), timeout: 60_000 },
    );
    const status = res.structuredContent as Structured;
    expect(status).toMatchObject({ status: 'completed', completed: 2, total: 2 });
    expect(progress.length).toBeGreaterThan(0);
    expect(progress[progress.length - 1]).toBe(2);

    const again = await client.callTool({ name: 'batch_status', arguments: { id: status.id } });
    expect((again.structuredContent as Structured).status).toBe('completed');

    const other = new Client({ name: 'other', version: '1.0.0' });
    await other.connect(
      new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
        requestInit: { headers: { 'x-api-key': 'mcp-key-b' } },
      }),
    );
    const foreign = await other.callTool({ name: 'batch_status', arguments: { id: status.id } });
    expect(foreign.isError).toBe(true);
    expect((foreign.content as { text: string }[])[0]?.text).toContain('NOT_FOUND');
    await other.close();
  });

  it('refuses a request without a key with 401 and a JSON-RPC error', async () => {
    const res = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 }, id: null });
  });
});
