import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import Firecrawl, { FirecrawlAppV1, SdkError } from '@mendable/firecrawl-js';
import { TrawlClient } from '@trawl/client';
import { llmTokensPeriodOf } from '@trawl/contracts';
import { bootstrapKeyId } from '@trawl/keys';
import {
  eventually,
  startLoopbackHttp,
  startOpenAiStub,
  type LoopbackServer,
  type OpenAiStub,
  type StubChatRequest,
  type StubReply,
} from '@trawl/testing';
import { API_KEY, callApi, startStack, type Stack } from './support/stack.js';

const PAGE = `<!doctype html><html lang="en"><head><title>Kettle 3000</title></head><body>
<main><article><h1>Kettle 3000</h1><p>The Kettle 3000 boils a litre in 90 seconds and costs 39.90 EUR.</p></article></main>
</body></html>`;
/** Each answer of the stub's model spends exactly this (its `usage`). */
const USAGE = { prompt_tokens: 300, completion_tokens: 100, total_tokens: 400 };
/** LLM_TOKENS_PER_KEY_PER_MONTH of the stack: spent by the third call (400, 800, 1200). */
const BUDGET = 1000;
const OTHER_KEY = 'system-e2e-other-key';

/**
 * ADR 0040 through the whole stack (gateway, extractor-scrape, task-service as processes; real Redis and NATS), the
 * model a local stub of OpenAI's chat-completions API whose every answer reports a `usage` of 400 tokens: each call
 * is counted for the key that asked, the budget refuses the next scrape asking for json or summary once spent (the
 * call admitted with tokens left overruns it by its answer), other keys and other formats are not affected, and the
 * counts read the same through Trawl's route, the typed client and firecrawl-js 4.42.0's own usage methods.
 */
describe('language-model tokens counted and capped per key, against a stub of the chat-completions API', () => {
  let site: LoopbackServer;
  let model: OpenAiStub;
  let stack: Stack;
  const url = () => `${site.url}/kettle`;
  const reply = (req: StubChatRequest): StubReply => ({
    content: req.response_format ? '{"name":"Kettle 3000"}' : 'A kettle.',
    usage: USAGE,
  });
  const scrape = (body: Record<string, unknown>, key = API_KEY) =>
    callApi(stack, 'POST', '/scrape', body, { 'x-api-key': key });
  const usage = async (key = API_KEY, query = '') => {
    const res = await callApi(stack, 'GET', `/usage/tokens${query}`, undefined, { 'x-api-key': key });
    expect(res.status).toBe(200);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the usage as the API answers it
    return res.body.data as any;
  };
  const period = llmTokensPeriodOf(new Date());

  beforeAll(async () => {
    site = await startLoopbackHttp((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(PAGE);
    });
    model = await startOpenAiStub((req) => reply(req));
    stack = await startStack(['gateway', 'extractor-scrape', 'task-service'], {
      API_KEYS: `${API_KEY},${OTHER_KEY}`,
      SSRF_ALLOW_HOSTS: '127.0.0.1',
      SCRAPE_DEFAULT_ENGINE: 'http',
      LLM_BASE_URL: model.baseUrl,
      LLM_MODEL: 'gpt-stub',
      LLM_TOKENS_PER_KEY_PER_MONTH: String(BUDGET),
    });
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    await model?.close();
    await site?.close();
  });

  it('counts rise by the usage the model reported, per call, for the key that asked; the cap then refuses', async () => {
    expect(await usage()).toEqual({
      budget: BUDGET,
      remaining: BUDGET,
      current: { ...period, promptTokens: 0, completionTokens: 0, totalTokens: 0, calls: 0, estimatedCalls: 0 },
      periods: [{ ...period, promptTokens: 0, completionTokens: 0, totalTokens: 0, calls: 0, estimatedCalls: 0 }],
    });

    // Two calls in one scrape (json and summary at once): 800.
    const both = await scrape({ url: url(), formats: ['summary', { type: 'json', prompt: 'the name' }] });
    expect(both.status).toBe(200);
    expect(both.body.data).toMatchObject({ summary: 'A kettle.', json: { name: 'Kettle 3000' } });
    expect((await usage()).current).toMatchObject({
      promptTokens: 600,
      completionTokens: 200,
      totalTokens: 800,
      calls: 2,
      estimatedCalls: 0,
    });
    expect((await usage()).remaining).toBe(200);

    // 200 left: admitted, and its answer takes the key past its budget (checked before, counted after).
    expect((await scrape({ url: url(), formats: ['summary'] })).status).toBe(200);
    expect(await usage()).toMatchObject({ remaining: 0, current: { totalTokens: 1200, calls: 3 } });

    // Spent: refused before the page is fetched or the model asked.
    const chats = model.chats.length;
    const fetched = site.requests.length;
    const refused = await scrape({ url: url(), formats: ['markdown', 'summary'] });
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({
      code: 429,
      errorCode: 429,
      data: { error: 'LLM_BUDGET_EXHAUSTED', retryable: false, field: 'formats' },
    });
    const nextPeriod = new Date(Date.parse(period.endDate) + 1).toISOString();
    expect(refused.body.message).toBe(
      `this API key has spent its language-model tokens for ${period.period} (1200 of ${BUDGET}); the json and ` +
        `summary formats are refused until ${nextPeriod} (other formats are not affected)`,
    );
    expect(model.chats.length).toBe(chats);
    expect(site.requests.length).toBe(fetched);
    expect((await usage()).current.totalTokens).toBe(1200);

    // Other formats of the same key, and another key, are not affected.
    expect((await scrape({ url: url(), formats: ['markdown'] })).status).toBe(200);
    const other = await scrape({ url: url(), formats: ['summary'] }, OTHER_KEY);
    expect(other.status).toBe(200);
    expect(await usage(OTHER_KEY)).toMatchObject({ remaining: BUDGET - 400, current: { totalTokens: 400, calls: 1 } });
    expect((await usage()).current.totalTokens).toBe(1200);
  });

  it('a spent key’s URL batch asking for summary: its task fails with LLM_BUDGET_EXHAUSTED, the model not asked', async () => {
    const chats = model.chats.length;
    const submitted = await callApi(stack, 'POST', '/extractTask/batch', {
      urls: [`${site.url}/kettle?batch=1`],
      type: 'scrape',
      webhook: `${site.url}/hook`,
      scrapeOptions: { formats: ['summary'] },
    });
    expect(submitted.status).toBe(200);
    const id = (submitted.body.data as { id: string }[])[0]?.id;
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the task record as the API answers it
    let record: any;
    await eventually(async () => {
      record = (await callApi(stack, 'GET', `/extractTask/${id}`)).body.data;
      return record.status === 'completed' || record.status === 'failed';
    }, 60_000);
    expect(record.status).toBe('failed');
    expect(JSON.stringify(record)).toContain('LLM_BUDGET_EXHAUSTED');
    expect(model.chats.length).toBe(chats);
  });

  it('Trawl’s route and typed client read the months; months is checked', async () => {
    const trawl = new TrawlClient({ baseUrl: stack.baseUrl, apiKey: API_KEY });
    const typed = await trawl.tokenUsage({ months: 3 });
    expect(typed.budget).toBe(BUDGET);
    expect(typed.current).toMatchObject({ period: period.period, totalTokens: 1200 });
    // Earlier months had no use: only the current one is listed.
    expect(typed.periods.map((p) => p.period)).toEqual([period.period]);
    const bad = await callApi(stack, 'GET', '/usage/tokens?months=0');
    expect(bad.status).toBe(400);
    expect(bad.body.data).toMatchObject({ error: 'VALIDATION_FAILED', field: 'months' });
  });

  it('firecrawl-js 4.42.0 reads the same numbers through its own usage methods, v2 and v1', async () => {
    const root = new URL(stack.baseUrl).origin;
    const firecrawl = new Firecrawl({ apiKey: API_KEY, apiUrl: root });
    expect(await firecrawl.getTokenUsage()).toEqual({
      remainingTokens: 0,
      planTokens: BUDGET,
      billingPeriodStart: period.startDate,
      billingPeriodEnd: period.endDate,
    });
    const other = new Firecrawl({ apiKey: OTHER_KEY, apiUrl: root });
    expect((await other.getTokenUsage()).remainingTokens).toBe(BUDGET - 400);
    expect(await firecrawl.getTokenUsageHistorical(true)).toEqual({
      success: true,
      periods: [
        { startDate: period.startDate, endDate: period.endDate, apiKey: bootstrapKeyId(API_KEY), tokensUsed: 1200 },
      ],
    });
    expect((await firecrawl.getTokenUsageHistorical()).periods[0]).not.toHaveProperty('apiKey');

    const v1 = new FirecrawlAppV1({ apiKey: API_KEY, apiUrl: root });
    expect(await v1.getTokenUsage()).toEqual({
      success: true,
      data: {
        remaining_tokens: 0,
        plan_tokens: BUDGET,
        billing_period_start: period.startDate,
        billing_period_end: period.endDate,
      },
    });

    // A spent key's scrape with summary, in Firecrawl's shape: 402, as Firecrawl answers a team out of credits.
    const refused = await fetch(`${root}/v2/scrape`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${API_KEY}` },
      body: JSON.stringify({ url: url(), formats: ['summary'] }),
    });
    expect(refused.status).toBe(402);
    expect(await refused.json()).toMatchObject({
      success: false,
      code: 'INSUFFICIENT_TOKENS',
      details: { field: 'formats' },
    });
    const thrown = await firecrawl.scrape(url(), { formats: ['summary'] }).catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(SdkError);
    expect((thrown as SdkError).status).toBe(402);
  });
});
