import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { TrawlError, type CrawlPlanRequestDto, type LlmTokenSpend, type LlmTokensUsage } from '@trawl/contracts';
import { startOpenAiStub, type OpenAiStub, type StubChatRequest, type StubReply } from '@trawl/testing';
import type { LlmSettings } from '../llm/llm.settings.js';
import { TokenLedger } from '../llm/token-ledger.service.js';
import {
  CRAWL_PLAN_ANSWER_SCHEMA,
  CRAWL_PLAN_SCHEMA_NAME,
  CRAWL_PLAN_SYSTEM_PROMPT,
} from './crawl-plan-request.builder.js';
import { CrawlPlanner } from './crawl-planner.service.js';

let next: (req: StubChatRequest) => StubReply = () => ({ content: null });

const ASK: CrawlPlanRequestDto = {
  url: 'https://site.test/',
  prompt: 'only the blog posts, at most 20',
  scope: 'host',
  siteUrls: ['https://site.test/', 'https://site.test/blog/a', 'https://site.test/shop/b'],
};

async function failure(p: Promise<unknown>): Promise<TrawlError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(TrawlError);
  return e as TrawlError;
}

function usage(remaining: number | null): LlmTokensUsage {
  const current = {
    period: '2026-11',
    startDate: '2026-11-01T00:00:00.000Z',
    endDate: '2026-11-30T23:59:59.999Z',
    promptTokens: 0,
    completionTokens: 0,
    totalTokens: remaining === null ? 0 : 100 - remaining,
    calls: 0,
    estimatedCalls: 0,
  };
  return { budget: remaining === null ? 0 : 100, remaining, current, periods: [current] };
}

describe('CrawlPlanner against a local stub of the chat-completions API', () => {
  let stub: OpenAiStub;
  let settings: LlmSettings;

  beforeAll(async () => {
    stub = await startOpenAiStub((req) => next(req));
    settings = { baseUrl: stub.baseUrl, model: 'gpt-test', apiKey: '', timeoutMs: 5000, maxInputChars: 1000 };
  });

  afterAll(async () => {
    await stub?.close();
  });

  it('asks the model with the prompt, the scope and the site’s URLs, and answers the options it chose', async () => {
    next = () => ({ content: '{"includePaths":["^/blog/"],"limit":20}' });
    const planner = new CrawlPlanner(settings);
    try {
      const plan = await planner.plan(ASK);
      expect(plan).toEqual({ url: ASK.url, options: { includePaths: ['^/blog/'], limit: 20 }, warnings: [] });
      const sent = stub.chats.at(-1)!;
      expect(sent.model).toBe('gpt-test');
      expect(sent.messages[0]).toEqual({ role: 'system', content: CRAWL_PLAN_SYSTEM_PROMPT });
      const user = sent.messages[1].content;
      expect(user).toContain('What to crawl: only the blog posts, at most 20');
      expect(user).toContain('covers the pages of site.test');
      expect(user).toContain(
        '<site-urls>\nhttps://site.test/\nhttps://site.test/blog/a\nhttps://site.test/shop/b\n</site-urls>',
      );
      expect(sent.response_format).toEqual({
        type: 'json_schema',
        json_schema: { name: CRAWL_PLAN_SCHEMA_NAME, schema: CRAWL_PLAN_ANSWER_SCHEMA, strict: false },
      });
    } finally {
      await planner.close();
    }
  });

  it('tells the model a path scope it cannot widen, and shows only the URLs that fit the input bound', async () => {
    next = () => ({ content: '{}' });
    const planner = new CrawlPlanner({ ...settings, maxInputChars: 40 });
    try {
      const plan = await planner.plan({ ...ASK, url: 'https://site.test/docs/', scope: 'path' });
      expect(plan.options).toEqual({});
      expect(plan.warnings).toEqual(["2 of the site's URLs were not shown to the model (LLM_MAX_INPUT_CHARS)"]);
      const user = stub.chats.at(-1)!.messages[1].content;
      expect(user).toContain('covers only the paths under /docs/ on site.test');
      expect(user).toContain('(1 of its map)');
      expect(user).not.toContain('/blog/a');
    } finally {
      await planner.close();
    }
  });

  it('refuses with 400 on `prompt` when no model is configured, asking nothing', async () => {
    const before = stub.chats.length;
    const e = await failure(new CrawlPlanner(undefined).plan(ASK));
    expect(e.code).toBe('VALIDATION_FAILED');
    expect(e.field).toBe('prompt');
    expect(e.message).toContain('LLM_BASE_URL');
    expect(stub.chats.length).toBe(before);
  });

  it('an answer that is not a JSON object, or a pattern that does not compile, is LLM_ANSWER_INVALID', async () => {
    const planner = new CrawlPlanner(settings);
    try {
      next = () => ({ content: 'crawl the blog' });
      expect((await failure(planner.plan(ASK))).code).toBe('LLM_ANSWER_INVALID');
      next = () => ({ content: '{"excludePaths":["[a-"]}' });
      const e = await failure(planner.plan(ASK));
      expect(e.code).toBe('LLM_ANSWER_INVALID');
      expect(e.message).toContain('excludePaths[0]');
    } finally {
      await planner.close();
    }
  });

  it('spends the key’s tokens: refused before the model is asked when spent, counted after an answer', async () => {
    const spent: LlmTokenSpend[] = [];
    let left: number | null = 0;
    const ledger = new TokenLedger({
      usage: async () => usage(left),
      record: async (_key, spend) => void spent.push(spend),
    });
    const planner = new CrawlPlanner(settings, ledger);
    try {
      next = () => ({ content: '{"limit":5}' });
      const before = stub.chats.length;
      const e = await failure(planner.plan({ ...ASK, apiKeyId: 'key-a' }));
      expect(e.code).toBe('LLM_BUDGET_EXHAUSTED');
      expect(e.field).toBe('prompt');
      expect(e.message).toContain('crawls planned from a prompt are refused until 2026-12-01T00:00:00.000Z');
      expect(stub.chats.length).toBe(before);
      left = 50;
      expect((await planner.plan({ ...ASK, apiKeyId: 'key-a' })).options).toEqual({ limit: 5 });
      expect(spent).toHaveLength(1);
      expect(spent[0].totalTokens).toBeGreaterThan(0);
    } finally {
      await planner.close();
    }
  });

  it('answers whether it would plan for a key now, asking the model nothing: no model, a spent budget, ready', async () => {
    const before = stub.chats.length;
    const none = await failure(new CrawlPlanner(undefined).ready('key-a'));
    expect(none.code).toBe('VALIDATION_FAILED');
    expect(none.field).toBe('prompt');
    let left: number | null = 0;
    const asked: string[] = [];
    const ledger = new TokenLedger({
      usage: async (key) => (asked.push(key), usage(left)),
      record: async () => undefined,
    });
    const planner = new CrawlPlanner(settings, ledger);
    try {
      expect((await failure(planner.ready('key-a'))).code).toBe('LLM_BUDGET_EXHAUSTED');
      left = 10;
      expect(await planner.ready('key-a')).toEqual({ ready: true });
      // No key (the gateway without authentication): no budget to read.
      expect(await planner.ready(undefined)).toEqual({ ready: true });
      expect(asked).toEqual(['key-a', 'key-a']);
      expect(stub.chats.length).toBe(before);
    } finally {
      await planner.close();
    }
  });
});
