import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import Firecrawl from '@mendable/firecrawl-js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { TrawlClient } from '@trawl/client';
import {
  eventually,
  startCrawlTrapSite,
  startOpenAiStub,
  type CrawlTrapSite,
  type OpenAiStub,
  type StubChatRequest,
  type StubReply,
} from '@trawl/testing';
import { API_KEY, callApi, startStack, WORKSPACE_ROOT, type Stack } from './support/stack.js';

/** What the stub's model plans for "only the docs": a scope, a size, a depth, and an option a plan may not set. */
const DOCS_PLAN = { includePaths: ['^/docs/'], limit: 7, maxDepth: 1, crawlEntireDomain: true };

/**
 * ADR 0042: a crawl planned from a prompt through the whole stack (gateway, task-service mapping the site and running
 * the crawl, extractor-scrape asking the model and scraping the pages), the model being a local stub of OpenAI's
 * chat-completions API (never a real model): the native plan and crawl with `prompt` (the caller's options win), the
 * typed client, Firecrawl's params preview and crawl with `prompt` through firecrawl-js 4.42.0, and the errors of an
 * answer a crawl cannot take.
 */
describe('crawls planned from a prompt, against a stub of the chat-completions API', () => {
  let site: CrawlTrapSite;
  let model: OpenAiStub;
  let stack: Stack;

  /** The stub's model: the plan for the docs, a pattern that does not compile, or nothing to choose. */
  const reply = (req: StubChatRequest): StubReply => {
    const user = req.messages[1]?.content ?? '';
    if (user.includes('What to crawl: only the docs')) return { content: JSON.stringify(DOCS_PLAN) };
    if (user.includes('What to crawl: broken')) return { content: '{"includePaths":["(docs"]}' };
    return { content: '{}' };
  };
  const plans = () => model.chats.filter((c) => c.response_format?.json_schema?.name === 'crawl_options');

  beforeAll(async () => {
    site = await startCrawlTrapSite();
    model = await startOpenAiStub((req) => reply(req), { apiKey: 'sk-e2e' });
    stack = await startStack(['gateway', 'extractor-scrape', 'task-service'], {
      SSRF_ALLOW_HOSTS: '127.0.0.1',
      SCRAPE_DEFAULT_ENGINE: 'http',
      TASK_SCRAPE_ENGINE: 'http',
      CRAWL_IDLE_MS: '50',
      LLM_BASE_URL: model.baseUrl,
      LLM_MODEL: 'gpt-stub',
      LLM_API_KEY: 'sk-e2e',
    });
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    await model?.close();
    await site?.close();
  });

  /** The titles of a finished crawl's documents, sorted. */
  async function titlesOf(id: string): Promise<string[]> {
    const crawl = await eventually(
      async () => {
        const res = await callApi(stack, 'GET', `/crawl/${id}`);
        return res.status === 200 && res.body.data.status !== 'scraping' ? res.body.data : undefined;
      },
      120_000,
      200,
    );
    expect(crawl.status).toBe('completed');
    expect(crawl.next ?? null).toBeNull();
    return crawl.data.map((d: { metadata: { title: string } }) => d.metadata.title).sort();
  }

  it('POST /crawl/plan: the model is shown the site’s map and its choice comes back held to the crawl’s rules', async () => {
    const before = plans().length;
    const res = await callApi(stack, 'POST', '/crawl/plan', { url: `${site.url}/`, prompt: 'only the docs' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      url: `${site.url}/`,
      options: { includePaths: ['^/docs/'], limit: 7, maxDepth: 1 },
      warnings: ['crawlEntireDomain: not an option a crawl plan sets; ignored'],
    });
    const sent = plans().slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0].model).toBe('gpt-stub');
    const user = sent[0].messages[1].content;
    // The map's URLs: the sitemaps' and the start page's links; never what robots.txt refuses.
    for (const path of site.sitemapPages) expect(user).toContain(`${site.url}${path === '/' ? '/' : path}\n`);
    expect(user).toContain(`${site.url}/about\n`);
    expect(user).not.toContain('/private/');
  });

  it('POST /crawl with a prompt: the plan fills what the body leaves out, and the crawl keeps to it', async () => {
    const res = await callApi(stack, 'POST', '/crawl', { url: `${site.url}/`, prompt: 'only the docs' });
    expect(res.status).toBe(200);
    expect(res.body.data.plan.options).toEqual({ includePaths: ['^/docs/'], limit: 7, maxDepth: 1 });
    expect(await titlesOf(res.body.data.id)).toEqual(['Doc 1', 'Doc 2', 'Doc 3']);
  });

  it('POST /crawl with a prompt and the caller’s own includePaths: the caller’s win over the plan’s', async () => {
    const res = await callApi(stack, 'POST', '/crawl', {
      url: `${site.url}/`,
      prompt: 'only the docs',
      includePaths: ['^/docs/[12]$'],
    });
    expect(res.status).toBe(200);
    // The plan says what the model chose; the crawl ran on the caller's patterns.
    expect(res.body.data.plan.options.includePaths).toEqual(['^/docs/']);
    expect(await titlesOf(res.body.data.id)).toEqual(['Doc 1', 'Doc 2']);
  });

  it('the typed client plans a crawl', async () => {
    const client = new TrawlClient({ baseUrl: stack.baseUrl, apiKey: API_KEY });
    const plan = await client.planCrawl({ url: `${site.url}/`, prompt: 'only the docs' });
    expect(plan.options).toEqual({ includePaths: ['^/docs/'], limit: 7, maxDepth: 1 });
  });

  it('an answer with a pattern a crawl cannot take: 502 LLM_ANSWER_INVALID naming it, and no crawl starts', async () => {
    const planned = await callApi(stack, 'POST', '/crawl/plan', { url: `${site.url}/`, prompt: 'broken' });
    expect(planned.status).toBe(502);
    expect(planned.body.data).toMatchObject({ error: 'LLM_ANSWER_INVALID' });
    expect(planned.body.message).toContain('includePaths[0] "(docs": not a valid regular expression');
    const crawl = await callApi(stack, 'POST', '/crawl', { url: `${site.url}/`, prompt: 'broken' });
    expect(crawl.status).toBe(502);
    expect(crawl.body.data).toMatchObject({ error: 'LLM_ANSWER_INVALID' });
    // Every crawl before this one has ended (each test waited for its own): none runs.
    const active = await callApi(stack, 'GET', '/crawl/active');
    expect(active.body.data.crawls).toEqual([]);
  });

  it('bad input is refused before the model is asked: an empty prompt, a prompt too long, a guarded URL', async () => {
    const before = plans().length;
    const empty = await callApi(stack, 'POST', '/crawl/plan', { url: `${site.url}/`, prompt: '' });
    expect(empty.status).toBe(400);
    expect(empty.body.data).toMatchObject({ error: 'VALIDATION_FAILED', field: 'prompt' });
    const long = await callApi(stack, 'POST', '/crawl', { url: `${site.url}/`, prompt: 'x'.repeat(10_001) });
    expect(long.status).toBe(400);
    expect(long.body.data).toMatchObject({ error: 'VALIDATION_FAILED', field: 'prompt' });
    // A start URL the SSRF guard refuses (127.0.0.2 is not allowed here) is refused as the crawl would be.
    const guarded = await callApi(stack, 'POST', '/crawl/plan', { url: 'http://127.0.0.2:9/', prompt: 'anything' });
    expect(guarded.status).toBe(422);
    expect(guarded.body.data).toMatchObject({ error: 'URL_NOT_ALLOWED' });
    expect(plans().length).toBe(before);
  });

  describe('Firecrawl’s routes through firecrawl-js 4.42.0, unchanged', () => {
    const firecrawl = () => new Firecrawl({ apiKey: API_KEY, apiUrl: new URL(stack.baseUrl).origin });

    it('crawlParamsPreview: the plan in Firecrawl’s names, with the start URL and the warning', async () => {
      const preview = (await firecrawl().crawlParamsPreview(`${site.url}/`, 'only the docs')) as Record<
        string,
        unknown
      >;
      expect(preview).toMatchObject({ url: `${site.url}/`, includePaths: ['^/docs/'], limit: 7, maxDiscoveryDepth: 1 });
      expect(preview.maxDepth).toBeUndefined();
      expect(String(preview.warning)).toContain('crawlEntireDomain');
    });

    it('crawl with a prompt runs to completion on the planned scope', async () => {
      const job = await firecrawl().crawl(`${site.url}/`, { prompt: 'only the docs', pollInterval: 1, timeout: 120 });
      expect(job.status).toBe('completed');
      const titles = job.data.map((d) => d.metadata?.title).sort();
      expect(titles).toEqual(['Doc 1', 'Doc 2', 'Doc 3']);
    });

    it('POST /v2/crawl with a prompt answers promptGeneratedOptions and finalCrawlerOptions, the caller’s limit kept', async () => {
      const root = new URL(stack.baseUrl).origin;
      const res = await fetch(`${root}/v2/crawl`, {
        method: 'POST',
        headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: `${site.url}/`, prompt: 'only the docs', limit: 2 }),
      });
      const body = (await res.json()) as Record<string, unknown>;
      expect(res.status).toBe(200);
      expect(body.success).toBe(true);
      expect(body.promptGeneratedOptions).toEqual({ includePaths: ['^/docs/'], limit: 7, maxDiscoveryDepth: 1 });
      expect(body.finalCrawlerOptions).toEqual({ includePaths: ['^/docs/'], limit: 2, maxDiscoveryDepth: 1 });
      const status = await eventually(async () => {
        const s = await firecrawl().getCrawlStatus(body.id as string);
        return s.status === 'scraping' ? undefined : s;
      }, 120_000);
      expect(status.status).toBe('completed');
      // The limit counts the URLs taken in: the start page (out of the planned scope: not stored) and one more.
      expect(status.total).toBe(2);
      expect(status.data.map((d) => d.metadata?.title)).toEqual([expect.stringMatching(/^Doc [123]$/)]);
    });

    it('firecrawl-mcp 3.26.0’s firecrawl_crawl with a prompt, over stdio: the planned pages only', async () => {
      const client = new Client({ name: 'system-e2e-crawl-plan', version: '1.0.0' });
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [resolve(WORKSPACE_ROOT, 'node_modules/firecrawl-mcp/dist/index.js')],
          env: {
            PATH: process.env.PATH ?? '',
            FIRECRAWL_API_URL: new URL(stack.baseUrl).origin,
            FIRECRAWL_API_KEY: API_KEY,
          },
          stderr: 'pipe',
        }),
      );
      try {
        const res = await client.callTool(
          { name: 'firecrawl_crawl', arguments: { url: `${site.url}/`, prompt: 'only the docs' } },
          undefined,
          { timeout: 120_000 },
        );
        expect({ isError: res.isError ?? false, content: res.isError ? res.content : null }).toEqual({
          isError: false,
          content: null,
        });
        // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the tool's JSON answer
        const crawled: any = res.structuredContent ?? JSON.parse((res.content as { text: string }[])[0].text);
        expect(crawled.status).toBe('completed');
        expect(crawled.data.map((d: { metadata: { title: string } }) => d.metadata.title).sort()).toEqual([
          'Doc 1',
          'Doc 2',
          'Doc 3',
        ]);
      } finally {
        await client.close();
      }
    }, 150_000);

    it('a plan the model got wrong is Firecrawl’s error shape', async () => {
      await expect(firecrawl().crawlParamsPreview(`${site.url}/`, 'broken')).rejects.toThrow(
        /not a valid regular expression/,
      );
    });
  });
});
