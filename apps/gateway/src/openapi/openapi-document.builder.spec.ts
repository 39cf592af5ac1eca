import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderApiDocs } from './api-docs.renderer.js';
import { API_PREFIX, limitsMarkdown, OPERATIONS } from './openapi-document.builder.js';
import { JOB_ID_PATTERN, LIMITS, MAX_HEADERS, MAX_URL_PARAMS } from '@trawl/contracts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Follows a local $ref. */
function deref(doc: Json, schema: Json): Json {
  const ref = schema.$ref as string | undefined;
  return ref
    ? (ref
        .split('/')
        .slice(1)
        .reduce((o: Json, k) => o[k], doc) as Json)
    : schema;
}

/** Issue 10, "must show" 1: openapi.json is what the code describes, and describes every response. */
describe('openapi.json', () => {
  it('equals the document regenerated from the code (run `npm run openapi` after an API change)', async () => {
    const { openApiJson, clientTypes } = await renderApiDocs();
    const committed = readFileSync(resolve(ROOT, 'openapi.json'), 'utf8');
    // Compare parsed first for a readable diff, then byte for byte (key order, indent).
    expect(JSON.parse(committed)).toEqual(JSON.parse(openApiJson));
    expect(committed).toBe(openApiJson);
    // The client's types are generated from the same document.
    expect(readFileSync(resolve(ROOT, 'libs/client/src/lib/api-types.generated.ts'), 'utf8')).toBe(clientTypes);
  });

  const doc = JSON.parse(readFileSync(resolve(ROOT, 'openapi.json'), 'utf8')) as Json;

  it('is OpenAPI 3.1 with the webhook payload under webhooks', () => {
    expect(doc.openapi).toBe('3.1.0');
    const body = doc.webhooks.taskFinished.post.requestBody.content['application/json'].schema;
    expect(deref(doc, body).properties.event.enum).toEqual(['task.completed', 'task.failed']);
  });

  it.each(Object.keys(OPERATIONS))(
    '%s: a 200 envelope with a typed data, and 4xx envelopes with their codes',
    (key) => {
      const [method, path] = key.split(' ') as [string, string];
      const op = doc.paths[`/${API_PREFIX}${path}`][method] as Json;
      const ok = op.responses['200'].content['application/json'].schema as Json;
      expect(ok.required).toEqual(['code', 'data', 'errorCode', 'message', 'requestId', 'timestamp']);
      expect(ok.properties.timestamp.type).toBe('integer');
      const data = ok.properties.data as Json;
      expect(data.$ref ?? data.items?.$ref).toMatch(/^#\/components\/schemas\//);
      const clientErrors = Object.keys(op.responses).filter((s) => /^4\d\d$/.test(s));
      expect(clientErrors.length).toBeGreaterThan(0);
      for (const status of clientErrors) {
        const schema = op.responses[status].content['application/json'].schema as Json;
        expect(schema.properties.data.allOf[1].properties.error.enum.length).toBeGreaterThan(0);
      }
    },
  );

  it.each(Object.keys(OPERATIONS))(
    '%s: lists 504 UPSTREAM_TIMEOUT, which the gateway answers when the service behind it misses its deadline',
    (key) => {
      const [method, path] = key.split(' ') as [string, string];
      const op = doc.paths[`/${API_PREFIX}${path}`][method] as Json;
      const schema = op.responses['504']?.content['application/json'].schema as Json;
      expect(schema?.properties.data.allOf[1].properties.error.enum).toEqual(['UPSTREAM_TIMEOUT']);
    },
  );

  it('types progress as whole percent, the jobId path parameter by its rule, and bounds params and headers', () => {
    const schemas = doc.components.schemas as Record<string, Json>;
    for (const name of ['TaskRecord', 'UrlBatchJob', 'MapsBatchJob', 'SearchBatchJob']) {
      expect([name, schemas[name]?.properties.progress]).toEqual([
        name,
        expect.objectContaining({ type: 'integer', minimum: 0, maximum: 100 }),
      ]);
    }
    for (const method of ['get', 'delete']) {
      const param = (doc.paths[`/${API_PREFIX}/extractTask/{jobId}`][method] as Json).parameters.find(
        (p: Json) => p.name === 'jobId',
      );
      expect(new RegExp(param.schema.pattern).source).toBe(JOB_ID_PATTERN.source);
    }
    const body = (path: string) =>
      deref(doc, doc.paths[`/${API_PREFIX}${path}`].post.requestBody.content['application/json'].schema) as Json;
    expect(body('/extract').properties.params.maxProperties).toBe(MAX_URL_PARAMS);
    expect(body('/extractTask/batch').properties.params.maxProperties).toBe(MAX_URL_PARAMS);
    expect(body('/scrape').properties.headers.maxProperties).toBe(MAX_HEADERS);
  });

  it('types integers as integers, with the bounds, patterns and defaults the DTOs enforce', () => {
    const search = doc.components.schemas.WebSearchRequestDto as Json;
    expect(search.additionalProperties).toBe(false);
    expect(search.properties.timeout).toMatchObject({ type: 'integer', minimum: 500, maximum: 120000, default: 25000 });
    expect(search.properties.num).toMatchObject({ type: 'integer', minimum: 1, maximum: 300 });
    expect(search.properties.start).toMatchObject({ type: 'integer', minimum: 0, maximum: 1000 });
    expect(search.properties.gl.pattern).toBe('^[a-zA-Z]{2}$');
    expect(search.properties.q).toMatchObject({ minLength: 1, maxLength: 2048 });
    expect((doc.components.schemas.MapsSearchRequestDto as Json).properties.num.maximum).toBe(500);
    expect((doc.components.schemas.ScrapeResult as Json).properties.rawStatus.type).toBe('integer');
  });

  it('shows maps search defaults, ISO dates as date-time, what a cache hit replays, what priority is (issue 20)', () => {
    const schemas = doc.components.schemas as Record<string, Json>;
    const maps = schemas.MapsSearchRequestDto as Json;
    expect(maps.properties.start.default).toBe(0);
    expect(maps.properties.num.default).toBe(LIMITS.defaultMapsSearchNum);
    const answer = schemas.MapsSearchResponse as Json;
    for (const field of ['finishedOn', 'processedOn']) {
      expect(answer.properties[field]).toMatchObject({ type: 'string', format: 'date-time' });
      expect(answer.properties[field].description).toContain('`maxAge`');
    }
    for (const field of ['taskId', 'edgeId'])
      expect(schemas.ScrapeResult?.properties[field].description).toContain('hit');
    expect(schemas.UrlBatchJob?.properties.priority.description).toContain('1 first');
  });

  it('lists the limits in its description and the README the same table (issue 10, item 6)', () => {
    expect(readFileSync(resolve(ROOT, 'README.md'), 'utf8')).toContain(limitsMarkdown());
    expect(doc.info.description).toContain(
      '| `timeout` (ms) | integer 500–120000, default 25000 | 400 VALIDATION_FAILED |',
    );
  });
});
