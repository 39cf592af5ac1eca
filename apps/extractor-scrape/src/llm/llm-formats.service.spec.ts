import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { TrawlError, type LlmTokenSpend } from '@trawl/contracts';
import { startOpenAiStub, stubUsageOf, type OpenAiStub, type StubChatRequest, type StubReply } from '@trawl/testing';
import { JSON_SYSTEM_PROMPT, SCHEMA_NAME, SUMMARY_SYSTEM_PROMPT } from './chat-request.builder.js';
import { LlmFormatsService } from './llm-formats.service.js';
import type { LlmSettings } from './llm.settings.js';
import { TokenLedger } from './token-ledger.service.js';

const SCHEMA = {
  type: 'object',
  properties: { name: { type: 'string' }, price: { type: 'number' } },
  required: ['name', 'price'],
  additionalProperties: false,
};
const PAGE = { url: 'https://shop.test/kettle', title: 'Kettle', text: '# Kettle\n\nThe Kettle 3000 costs 39.90 EUR.' };
const later = () => Date.now() + 20_000;

/** What the stub answers next, set by each test (the stub answers in the order the requests come). */
let next: (req: StubChatRequest) => StubReply = () => ({ content: null });

async function failure(p: Promise<unknown>): Promise<TrawlError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(TrawlError);
  return e as TrawlError;
}

describe('LlmFormatsService against a local stub of the chat-completions API', () => {
  let stub: OpenAiStub;
  let settings: LlmSettings;
  let llm: LlmFormatsService;

  beforeAll(async () => {
    stub = await startOpenAiStub((req) => next(req), { apiKey: 'sk-test' });
    settings = { baseUrl: stub.baseUrl, model: 'gpt-test', apiKey: 'sk-test', timeoutMs: 1000, maxInputChars: 100 };
    llm = new LlmFormatsService(settings);
  });

  afterAll(async () => {
    await llm?.close();
    await stub?.close();
  });

  it('asks nothing when no LLM format is asked for', () => {
    expect(llm.plan(['markdown', 'html', { type: 'screenshot' }])).toBeUndefined();
  });

  it('sends json_schema with the schema, strict when the schema is closed, and returns the valid object', async () => {
    next = () => ({ content: '{"name":"Kettle 3000","price":39.9}' });
    const plan = llm.plan([{ type: 'json', schema: SCHEMA, prompt: 'the product' }])!;
    const answers = await llm.answer(plan, PAGE, later());
    expect(answers).toEqual({ json: { name: 'Kettle 3000', price: 39.9 } });
    const sent = stub.chats.at(-1)!;
    expect(stub.requests.at(-1)?.headers.authorization).toBe('Bearer sk-test');
    expect(sent.model).toBe('gpt-test');
    expect(sent.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: SCHEMA_NAME, schema: SCHEMA, strict: true },
    });
    expect(sent.messages[0]).toEqual({ role: 'system', content: JSON_SYSTEM_PROMPT });
    expect(sent.messages[1].role).toBe('user');
    expect(sent.messages[1].content).toContain('What to extract: the product');
    expect(sent.messages[1].content).toContain('<page>\n# Kettle\n\nThe Kettle 3000 costs 39.90 EUR.\n</page>');
  });

  it('sends strict false for an open schema, json_object for a prompt alone, and drops $schema', async () => {
    next = () => ({ content: '{"name":"Kettle"}' });
    const open = { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: {} };
    await llm.answer(llm.plan([{ type: 'json', schema: open }])!, PAGE, later());
    expect(stub.chats.at(-1)!.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: SCHEMA_NAME, schema: { type: 'object', properties: {} }, strict: false },
    });
    await llm.answer(llm.plan([{ type: 'json', prompt: 'the name' }])!, PAGE, later());
    expect(stub.chats.at(-1)!.response_format).toEqual({ type: 'json_object' });
  });

  it('asks for a summary with its own prompt, both formats at once, and cuts the page text at the bound', async () => {
    next = (req) =>
      req.response_format ? { content: '{"name":"K","price":1}' } : { content: '  A kettle for 39.90 EUR.\n' };
    const before = stub.chats.length;
    const long = { ...PAGE, text: 'x'.repeat(250) };
    const answers = await llm.answer(llm.plan(['summary', { type: 'json', schema: SCHEMA }])!, long, later());
    expect(answers).toEqual({ summary: 'A kettle for 39.90 EUR.', json: { name: 'K', price: 1 } });
    const sent = stub.chats.slice(before);
    expect(sent).toHaveLength(2);
    const summary = sent.find((c) => !c.response_format)!;
    expect(summary.messages[0].content).toBe(SUMMARY_SYSTEM_PROMPT);
    const user = summary.messages[1].content;
    expect(user).toContain(`${'x'.repeat(100)}\n\n[The page goes on; its text was cut at 100 characters.]`);
    expect(user).not.toContain('x'.repeat(101));
  });

  it('an answer that does not follow the schema is LLM_ANSWER_INVALID naming the field, never passed on', async () => {
    const plan = llm.plan([{ type: 'json', schema: SCHEMA }])!;
    next = () => ({ content: '{"name":"Kettle","price":"cheap"}' });
    const wrongType = await failure(llm.answer(plan, PAGE, later()));
    expect(wrongType.code).toBe('LLM_ANSWER_INVALID');
    expect(wrongType.message).toBe('the model’s answer does not follow the json schema: /price must be number');
    next = () => ({ content: '{"name":"Kettle"}' });
    expect((await failure(llm.answer(plan, PAGE, later()))).message).toContain("must have required property 'price'");
    next = () => ({ content: 'Sure! The kettle costs 39.90.' });
    expect((await failure(llm.answer(plan, PAGE, later()))).message).toBe('the model’s answer is not JSON');
    next = () => ({ content: '[1,2]' });
    expect((await failure(llm.answer(llm.plan([{ type: 'json', prompt: 'p' }])!, PAGE, later()))).message).toBe(
      'the model’s answer is not a JSON object',
    );
    next = () => ({ content: null, refusal: 'I cannot help with that.' });
    expect((await failure(llm.answer(plan, PAGE, later()))).message).toBe(
      'the model refused: I cannot help with that.',
    );
    next = () => ({ content: '{"name":"Ke', finishReason: 'length' });
    expect((await failure(llm.answer(plan, PAGE, later()))).message).toContain('cut off');
    next = () => ({ content: '' });
    expect((await failure(llm.answer(llm.plan(['summary'])!, PAGE, later()))).message).toBe(
      'the model answered nothing',
    );
  });

  it("checks the schema's known formats (email, date-time, uri) in the answer and ignores formats it does not know", async () => {
    const schema = {
      type: 'object',
      properties: {
        contact: { type: 'string', format: 'email' },
        updated: { type: 'string', format: 'date-time' },
        page: { type: 'string', format: 'uri' },
        colour: { type: 'string', format: 'css-colour' },
      },
      required: ['contact', 'updated', 'page'],
    };
    const plan = llm.plan([{ type: 'json', schema }])!;
    const valid = {
      contact: 'sales@shop.test',
      updated: '2026-11-28T10:00:00Z',
      page: 'https://shop.test/k',
      colour: 'teal',
    };
    next = () => ({ content: JSON.stringify(valid) });
    expect(await llm.answer(plan, PAGE, later())).toEqual({ json: valid });
    next = () => ({ content: JSON.stringify({ ...valid, contact: 'sales at shop' }) });
    expect((await failure(llm.answer(plan, PAGE, later()))).message).toBe(
      'the model’s answer does not follow the json schema: /contact must match format "email"',
    );
    next = () => ({ content: JSON.stringify({ ...valid, updated: 'last Tuesday', page: 'not a uri' }) });
    const both = await failure(llm.answer(plan, PAGE, later()));
    expect(both.code).toBe('LLM_ANSWER_INVALID');
    expect(both.message).toContain('/updated must match format "date-time"');
    expect(both.message).toContain('/page must match format "uri"');
  });

  it('a schema pattern that would stall the event loop runs in the worker and is stopped at its budget', async () => {
    const hostile = {
      type: 'object',
      properties: { code: { type: 'string', pattern: '^(a+)+$' } },
      required: ['code'],
    };
    const budgeted = new LlmFormatsService(settings, 1500);
    try {
      next = () => ({ content: JSON.stringify({ code: `${'a'.repeat(40)}!` }) });
      const plan = budgeted.plan([{ type: 'json', schema: hostile }])!;
      const stopped = await failure(budgeted.answer(plan, PAGE, later()));
      expect(stopped.code).toBe('LLM_ANSWER_INVALID');
      expect(stopped.message).toContain('took longer than 1500 ms');
      // The next validation gets a new worker and is answered.
      next = () => ({ content: '{"code":"aaa"}' });
      expect((await budgeted.answer(plan, PAGE, later())).json).toEqual({ code: 'aaa' });
    } finally {
      await budgeted.close();
    }
  });

  it('takes one ```json fence off an answer', async () => {
    next = () => ({ content: '```json\n{"name":"Kettle","price":2}\n```' });
    const answers = await llm.answer(llm.plan([{ type: 'json', schema: SCHEMA }])!, PAGE, later());
    expect(answers.json).toEqual({ name: 'Kettle', price: 2 });
  });

  it('endpoint failures are LLM_UNAVAILABLE: retryable for 5xx and 429, not for 400/401, with its words', async () => {
    const plan = llm.plan(['summary'])!;
    next = () => ({ status: 503, error: 'The server is overloaded.' });
    const overloaded = await failure(llm.answer(plan, PAGE, later()));
    expect(overloaded.toWire()).toEqual({
      code: 'LLM_UNAVAILABLE',
      message: 'the language model endpoint answered 503: The server is overloaded.',
      retryable: true,
    });
    next = () => ({ status: 429, error: 'Rate limit reached.' });
    expect((await failure(llm.answer(plan, PAGE, later()))).retryable).toBe(true);
    next = () => ({ status: 400, error: "Invalid schema for response_format 'extraction'." });
    const refused = await failure(llm.answer(plan, PAGE, later()));
    expect(refused.toWire()).toEqual({
      code: 'LLM_UNAVAILABLE',
      message: "the language model endpoint answered 400: Invalid schema for response_format 'extraction'.",
      retryable: false,
      field: 'formats',
    });
    const wrongKey = new LlmFormatsService({ ...settings, apiKey: 'sk-wrong' });
    const denied = await failure(wrongKey.answer(plan, PAGE, later()));
    await wrongKey.close();
    expect(denied.message).toBe('the language model endpoint answered 401: Incorrect API key provided.');
    expect(denied.retryable).toBe(false);
  });

  it('an endpoint that does not answer in time is LLM_UNAVAILABLE, or UPSTREAM_TIMEOUT when the scrape’s deadline came first', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const silent = await startOpenAiStub(async () => {
      await held;
      return { content: 'late' };
    });
    const slow = new LlmFormatsService({ ...settings, baseUrl: silent.baseUrl, apiKey: '' });
    try {
      const plan = slow.plan(['summary'])!;
      const timedOut = await failure(slow.answer(plan, PAGE, later()));
      expect(timedOut.code).toBe('LLM_UNAVAILABLE');
      expect(timedOut.message).toBe('the language model did not answer within 1000 ms (LLM_TIMEOUT_MS)');
      const deadline = await failure(slow.answer(plan, PAGE, Date.now() + 300));
      expect(deadline.code).toBe('UPSTREAM_TIMEOUT');
    } finally {
      release();
      await slow.close();
      await silent.close();
    }
  });

  it('an endpoint that cannot be reached is LLM_UNAVAILABLE, retryable', async () => {
    const gone = await startOpenAiStub(() => ({ content: '' }));
    await gone.close();
    const away = new LlmFormatsService({ ...settings, baseUrl: gone.baseUrl });
    const e = await failure(away.answer(away.plan(['summary'])!, PAGE, later()));
    await away.close();
    expect(e.code).toBe('LLM_UNAVAILABLE');
    expect(e.retryable).toBe(true);
    expect(e.message).toContain('could not be reached');
  });

  it('without an endpoint configured the formats are refused with VALIDATION_FAILED saying so', () => {
    const none = new LlmFormatsService(undefined);
    expect(none.plan(['markdown'])).toBeUndefined();
    for (const formats of [['summary'], [{ type: 'json', prompt: 'p' }], [{ type: 'summary' }]] as const) {
      let thrown: unknown;
      try {
        none.plan(formats as never);
      } catch (e) {
        thrown = e;
      }
      expect(thrown).toBeInstanceOf(TrawlError);
      expect((thrown as TrawlError).toWire()).toMatchObject({ code: 'VALIDATION_FAILED', field: 'formats' });
      expect((thrown as TrawlError).message).toContain('none is configured on this service (LLM_BASE_URL');
    }
  });

  it('a schema that does not compile is refused before anything is asked', () => {
    const before = stub.chats.length;
    let thrown: unknown;
    try {
      llm.plan([{ type: 'json', schema: { type: 'object', properties: { a: { type: 'banana' } } } }]);
    } catch (e) {
      thrown = e;
    }
    expect((thrown as TrawlError).toWire()).toMatchObject({ code: 'VALIDATION_FAILED', field: 'formats' });
    expect((thrown as TrawlError).message).toContain('not a valid JSON Schema');
    expect(stub.chats.length).toBe(before);
  });
});

describe('LlmFormatsService counts each call’s tokens for the key that asked (ADR 0040)', () => {
  let stub: OpenAiStub;
  let llm: LlmFormatsService;
  const recorded: [string, LlmTokenSpend][] = [];
  let usageAsked = 0;

  beforeAll(async () => {
    stub = await startOpenAiStub((req) => next(req));
    const settings = { baseUrl: stub.baseUrl, model: 'gpt-test', apiKey: '', timeoutMs: 1000, maxInputChars: 100 };
    const ledger = new TokenLedger({
      usage: async () => {
        usageAsked++;
        throw new Error('not asked in these tests');
      },
      record: async (apiKeyId, spend) => recorded.push([apiKeyId, spend]),
    });
    llm = new LlmFormatsService(settings, undefined, ledger);
  });

  afterAll(async () => {
    await llm?.close();
    await stub?.close();
  });

  it("records the endpoint's usage of every answered call, an answer that proves invalid included", async () => {
    recorded.length = 0;
    next = (req) => ({ content: req.response_format ? '{"name":"Kettle","price":"cheap"}' : 'A kettle.' });
    const plan = llm.plan([{ type: 'json', schema: SCHEMA }, 'summary'])!;
    const error = await failure(llm.answer(plan, PAGE, later(), 'key-a'));
    expect(error.code).toBe('LLM_ANSWER_INVALID');
    const bodies = stub.requests.slice(-2).map((r) => r.body.length);
    expect(recorded.map(([key]) => key)).toEqual(['key-a', 'key-a']);
    expect(recorded.map(([, s]) => s.totalTokens).sort()).toEqual(
      bodies.map((n) => stubUsageOf(n).total_tokens).sort(),
    );
    expect(recorded.every(([, s]) => !s.estimated && s.completionTokens === 10)).toBe(true);
  });

  it('estimates when the endpoint gives no usage, and counts nothing for a scrape without a key', async () => {
    recorded.length = 0;
    next = () => ({ content: 'A kettle.', usage: null });
    const plan = llm.plan(['summary'])!;
    expect(await llm.answer(plan, PAGE, later(), 'key-b')).toEqual({ summary: 'A kettle.' });
    expect(recorded).toHaveLength(1);
    expect(recorded[0]?.[1]).toMatchObject({ estimated: true, completionTokens: 3 });
    await llm.answer(plan, PAGE, later());
    await llm.admit(undefined);
    expect(recorded).toHaveLength(1);
    expect(usageAsked).toBe(0);
  });
});
