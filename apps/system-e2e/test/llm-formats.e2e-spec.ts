import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import Firecrawl from '@mendable/firecrawl-js';
import { TrawlClient } from '@trawl/client';
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

const PARAGRAPH = 'The Kettle 3000 boils a litre in 90 seconds and costs 39.90 EUR, shipping included.';
const PAGE = `<!doctype html><html lang="en"><head><title>Kettle 3000</title></head><body>
<header><a href="/">Shop</a><ul><li><a href="/deals">Deals</a></li></ul></header>
<div class="cookie-banner">We use cookies. <a href="/privacy">Privacy</a></div>
<main><article><h1>Kettle 3000</h1>${`<p>${PARAGRAPH}</p>`.repeat(5)}</article></main>
<footer><p>© 2026 Shop. All rights reserved.</p></footer></body></html>`;

const SCHEMA = {
  type: 'object',
  properties: { name: { type: 'string' }, price: { type: 'number' } },
  required: ['name', 'price'],
  additionalProperties: false,
};
const SUMMARY = 'A kettle that boils a litre in 90 seconds, for 39.90 EUR.';

/**
 * Issue 21 item 3 (ADR 0029): the `json` and `summary` formats through the gateway and extractor-scrape as separate
 * processes, the model being a local stub of OpenAI's chat-completions API (never a real model): a schema answered
 * and validated, a summary, an answer that breaks the schema as a clear error, /extract type scrape, the typed
 * client, Firecrawl's v2 route through firecrawl-js 4.42.0, and the 400 when no endpoint is configured.
 */
describe('json and summary formats through the whole stack, against a stub of the chat-completions API', () => {
  let site: LoopbackServer;
  let model: OpenAiStub;
  let stack: Stack;
  /** What the stub's model says to a json request (the summary request always gets SUMMARY). */
  let jsonAnswer = '{"name":"Kettle 3000","price":39.9}';
  const scrape = (body: Record<string, unknown>) => callApi(stack, 'POST', '/scrape', body);
  const url = () => `${site.url}/kettle`;
  const reply = (req: StubChatRequest): StubReply => ({ content: req.response_format ? jsonAnswer : SUMMARY });

  beforeAll(async () => {
    site = await startLoopbackHttp((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(PAGE);
    });
    model = await startOpenAiStub((req) => reply(req), { apiKey: 'sk-e2e' });
    stack = await startStack(['gateway', 'extractor-scrape', 'task-service'], {
      SSRF_ALLOW_HOSTS: '127.0.0.1',
      SCRAPE_DEFAULT_ENGINE: 'http',
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

  it('json with a schema: the object the model read, valid against the schema; the model was sent the main content', async () => {
    const before = model.chats.length;
    const res = await scrape({ url: url(), formats: [{ type: 'json', schema: SCHEMA, prompt: 'the product' }] });
    expect(res.status).toBe(200);
    expect(res.body.data.json).toEqual({ name: 'Kettle 3000', price: 39.9 });
    expect(res.body.data.markdown).toBeUndefined();
    const sent = model.chats.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0].model).toBe('gpt-stub');
    expect(sent[0].response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'extraction', schema: SCHEMA, strict: true },
    });
    const user = sent[0].messages[1].content;
    expect(user).toContain('What to extract: the product');
    expect(user).toContain(`URL: ${url()}\nTitle: Kettle 3000`);
    expect(user).toContain(PARAGRAPH);
    for (const furniture of ['We use cookies', 'All rights reserved', 'Deals']) expect(user).not.toContain(furniture);
  });

  it('summary beside markdown, and through the typed client', async () => {
    const res = await scrape({ url: url(), formats: ['markdown', 'summary'] });
    expect(res.status).toBe(200);
    expect(res.body.data.summary).toBe(SUMMARY);
    expect(res.body.data.markdown).toContain(PARAGRAPH);
    expect(res.body.data.json).toBeUndefined();

    const trawl = new TrawlClient({ baseUrl: stack.baseUrl, apiKey: API_KEY });
    const typed = await trawl.scrape({ url: url(), formats: [{ type: 'summary' }, { type: 'json', schema: SCHEMA }] });
    expect(typed.summary).toBe(SUMMARY);
    expect(typed.json).toEqual({ name: 'Kettle 3000', price: 39.9 });
  });

  it('an answer that breaks the schema is a 502 LLM_ANSWER_INVALID naming the field, not a result', async () => {
    jsonAnswer = '{"name":"Kettle 3000","price":"cheap"}';
    try {
      const res = await scrape({ url: url(), formats: [{ type: 'json', schema: SCHEMA }] });
      expect(res.status).toBe(502);
      expect(res.body).toMatchObject({
        code: 502,
        errorCode: 502,
        message: 'the model’s answer does not follow the json schema: /price must be number',
        data: { error: 'LLM_ANSWER_INVALID', retryable: false },
      });
      jsonAnswer = 'Here is your JSON: {"name": "Kettle"}';
      const prose = await scrape({ url: url(), formats: [{ type: 'json', prompt: 'the name' }] });
      expect(prose.status).toBe(502);
      expect(prose.body.message).toBe('the model’s answer is not JSON');
    } finally {
      jsonAnswer = '{"name":"Kettle 3000","price":39.9}';
    }
  });

  it('bounds and shapes are checked at the gateway before any page or model is asked', async () => {
    const before = model.chats.length;
    const big = { type: 'object', properties: { a: { type: 'string', description: 'x'.repeat(40_000) } } };
    for (const [formats, words] of [
      [[{ type: 'json', schema: big }], 'schema must be at most 32768 characters'],
      [[{ type: 'json' }], 'needs a schema, a prompt or both'],
      [['json'], "json must be { type: 'json', schema, prompt }"],
      [[{ type: 'json', schema: { type: 'array' } }], 'schema must describe an object'],
      [[{ type: 'json', prompt: 'x'.repeat(10_001) }], 'prompt must be a string of 1-10000 characters'],
    ] as const) {
      const res = await scrape({ url: url(), formats });
      expect(res.status).toBe(400);
      expect(res.body.data).toMatchObject({ error: 'VALIDATION_FAILED', field: 'formats' });
      expect(res.body.message).toContain(words);
    }
    const notASchema = await scrape({
      url: url(),
      formats: [{ type: 'json', schema: { type: 'object', properties: { a: { type: 'banana' } } } }],
    });
    expect(notASchema.status).toBe(400);
    expect(notASchema.body.message).toContain('not a valid JSON Schema');
    expect(model.chats.length).toBe(before);
  });

  it('/extract type scrape carries the formats in scrapeOptions', async () => {
    const res = await callApi(stack, 'POST', '/extract', {
      url: url(),
      type: 'scrape',
      scrapeOptions: { formats: ['summary'] },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.data.summary).toBe(SUMMARY);
    expect(res.body.data.params).toMatchObject({ type: 'scrape', url: url() });
  });

  it('a URL batch of type scrape carries them in scrapeOptions: each task record has its json and summary', async () => {
    const urls = [`${site.url}/kettle?b=1`, `${site.url}/kettle?b=2`];
    const submitted = await callApi(stack, 'POST', '/extractTask/batch', {
      urls,
      type: 'scrape',
      // The spec's batch needs a webhook; no dispatcher runs here, the records are looked up.
      webhook: `${site.url}/hook`,
      scrapeOptions: { formats: ['summary', { type: 'json', schema: SCHEMA }] },
    });
    expect(submitted.status).toBe(200);
    const ids = (submitted.body.data as { id: string }[]).map((j) => j.id);
    expect(ids).toHaveLength(2);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the task record as the API answers it
    const records: any[] = [];
    await eventually(async () => {
      records.length = 0;
      for (const id of ids) records.push((await callApi(stack, 'GET', `/extractTask/${id}`)).body.data);
      return records.every((r) => r.status === 'completed' || r.status === 'failed');
    }, 60_000);
    for (const [i, record] of records.entries()) {
      expect(record.status).toBe('completed');
      expect(record.data).toMatchObject({
        sourceURL: urls[i],
        summary: SUMMARY,
        json: { name: 'Kettle 3000', price: 39.9 },
      });
    }
  });

  it('Firecrawl v2 scrape with the json and summary formats through firecrawl-js 4.42.0, no warning', async () => {
    const root = new URL(stack.baseUrl).origin;
    const firecrawl = new Firecrawl({ apiKey: API_KEY, apiUrl: root });
    const doc = await firecrawl.scrape(url(), {
      formats: [{ type: 'json', schema: SCHEMA, prompt: 'the product' }, 'summary', 'markdown'],
    });
    expect(doc.json).toEqual({ name: 'Kettle 3000', price: 39.9 });
    expect(doc.summary).toBe(SUMMARY);
    expect(doc.markdown).toContain(PARAGRAPH);
    expect(doc.warning).toBeUndefined();

    // v1's json format with jsonOptions, over the wire.
    const v1 = await fetch(`${root}/v1/scrape`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${API_KEY}` },
      body: JSON.stringify({ url: url(), formats: ['json'], jsonOptions: { schema: SCHEMA } }),
    });
    expect(v1.status).toBe(200);
    expect(((await v1.json()) as { data: { json: unknown } }).data.json).toEqual({ name: 'Kettle 3000', price: 39.9 });
  });

  it('without an endpoint configured: 400 saying so, in the envelope and in Firecrawl’s shape', async () => {
    await stack.services.get('extractor-scrape')?.stop();
    stack.services.delete('extractor-scrape');
    await stack.startService('extractor-scrape', { LLM_BASE_URL: '', LLM_MODEL: '', LLM_API_KEY: '' });
    const before = model.chats.length;
    const res = await scrape({ url: url(), formats: [{ type: 'json', schema: SCHEMA }, 'summary'] });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: 400,
      errorCode: 400,
      message:
        'formats: json and summary need a language model, and none is configured on this service ' +
        '(LLM_BASE_URL and LLM_MODEL of extractor-scrape)',
      data: { error: 'VALIDATION_FAILED', retryable: false, field: 'formats' },
    });
    const firecrawl = await fetch(`${new URL(stack.baseUrl).origin}/v2/scrape`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${API_KEY}` },
      body: JSON.stringify({ url: url(), formats: ['summary'] }),
    });
    expect(firecrawl.status).toBe(400);
    expect(await firecrawl.json()).toEqual({
      success: false,
      code: 'BAD_REQUEST',
      details: { field: 'formats' },
      error:
        'formats: summary needs a language model, and none is configured on this service ' +
        '(LLM_BASE_URL and LLM_MODEL of extractor-scrape)',
    });
    // Other formats are unaffected.
    expect((await scrape({ url: url(), formats: ['markdown'] })).status).toBe(200);
    expect(model.chats.length).toBe(before);
  });
});
