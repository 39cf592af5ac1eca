import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import * as contracts from '@trawl/contracts';
import {
  arr,
  CRAWL_PLAN,
  CRAWL_START_REPLY,
  CRAWL_STATUS,
  CRAWL_ERRORS,
  ACTIVE_CRAWLS,
  LLM_TOKENS_USAGE,
  KEY_QUEUE_USAGE,
  ERROR_DATA,
  ERROR_HTTP_STATUS,
  ERROR_RETRYABLE,
  envelopeSchema,
  EXTRACT_RESPONSE,
  LIMITS,
  MAP_SITE_REPLY,
  MAPS_BATCH_JOB,
  MAPS_SEARCH_RESPONSE,
  ref,
  RESPONSE_SCHEMAS,
  SCRAPE_RESULT,
  SEARCH_BATCH_JOB,
  TASK_RECORD,
  URL_BATCH_JOB,
  WEB_SEARCH_RESULT,
  WEBHOOK_PAYLOAD,
  type ErrorCode,
  type ErrorData,
  type JsonSchema,
  type Schema,
} from '@trawl/contracts';
import { getMetadataStorage } from 'class-validator';
import { MAX_JSON_DEPTH } from '../validation/json-body.parser.js';

export const API_PREFIX = 'api/openapi/v1';

/** Codes any authenticated JSON operation can answer. */
const COMMON: ErrorCode[] = [
  'VALIDATION_FAILED',
  'MALFORMED_JSON',
  'JSON_TOO_DEEP',
  'UNAUTHORIZED',
  'METHOD_NOT_ALLOWED',
  'HEADERS_TOO_LARGE',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'RATE_LIMITED',
  'INTERNAL',
  'SERVICE_UNAVAILABLE',
  'OVERLOADED',
];
const UPSTREAM: ErrorCode[] = ['UPSTREAM_NOT_FOUND', 'UPSTREAM_ERROR', 'UPSTREAM_BLOCKED', 'UPSTREAM_TIMEOUT'];
/** What turning a fetched page into text can refuse (scrape, and /extract of type scrape). */
const PAGE: ErrorCode[] = ['UNSUPPORTED_CONTENT_TYPE', 'CONTENT_TOO_LARGE', 'PAGE_TOO_COMPLEX'];
/** What the `json` and `summary` formats can answer (ADR 0029, ADR 0040). */
const LLM: ErrorCode[] = ['LLM_UNAVAILABLE', 'LLM_ANSWER_INVALID', 'LLM_BUDGET_EXHAUSTED'];
/** What a batch submission with an `Idempotency-Key` can answer beside the rest. */
const IDEMPOTENCY: ErrorCode[] = ['IDEMPOTENCY_KEY_REUSED', 'IDEMPOTENCY_KEY_IN_PROGRESS'];
/**
 * What an operation answered by task-service can meet on the way: task-service not answering within the gateway's
 * deadline (504 UPSTREAM_TIMEOUT: MessagingClient's deadline, as for the extractors).
 */
const TASK_SERVICE: ErrorCode[] = ['UPSTREAM_TIMEOUT'];
/** Task lookup and cancel: a path parameter, no body. */
const BY_ID: ErrorCode[] = [
  'VALIDATION_FAILED',
  'UNAUTHORIZED',
  'TASK_NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'URI_TOO_LONG',
  'HEADERS_TOO_LARGE',
  'RATE_LIMITED',
  'INTERNAL',
  'SERVICE_UNAVAILABLE',
  ...TASK_SERVICE,
];

interface OperationDoc {
  /** Schema of `data` on 200. */
  data: Schema<unknown>;
  /** Error codes the operation can answer (docs/errors.md). */
  errors: ErrorCode[];
  /** Answered through the result cache (`maxAge`): the 200 response documents its headers. */
  cached?: boolean;
}

/** Headers of a 200 answered through the result cache (ADR 0016). */
const CACHE_HEADERS = {
  'X-Trawl-Cache': {
    description: '`hit`: a stored result younger than `maxAge`; `miss`: the upstream was asked. Absent: no cache.',
    schema: { type: 'string', enum: ['hit', 'miss'] },
  },
  Age: { description: 'On a hit: the stored result’s age, whole seconds.', schema: { type: 'integer', minimum: 0 } },
  'X-Trawl-Cache-Age-Ms': {
    description: 'On a hit: the stored result’s age, milliseconds.',
    schema: { type: 'integer', minimum: 0 },
  },
};

/** The operations: `data` and the error codes of each. The test checks every path here is served. */
export const OPERATIONS: Record<string, OperationDoc> = {
  'post /extract/search': { data: ref(WEB_SEARCH_RESULT), errors: [...COMMON, ...UPSTREAM], cached: true },
  'post /extract/search/maps': { data: ref(MAPS_SEARCH_RESPONSE), errors: [...COMMON, ...UPSTREAM], cached: true },
  'post /extract': {
    data: ref(EXTRACT_RESPONSE),
    errors: [...COMMON, 'URL_NOT_ALLOWED', 'PAGE_NOT_RECOGNISED', ...PAGE, ...LLM, ...UPSTREAM],
    cached: true,
  },
  'post /scrape': {
    data: ref(SCRAPE_RESULT),
    errors: [...COMMON, 'URL_NOT_ALLOWED', ...PAGE, ...LLM, ...UPSTREAM],
    cached: true,
  },
  'post /extractTask/batch/maps': {
    data: arr(ref(MAPS_BATCH_JOB)),
    errors: [...COMMON, 'URL_NOT_ALLOWED', ...IDEMPOTENCY, ...TASK_SERVICE],
  },
  'post /extractTask/batch/search': {
    data: arr(ref(SEARCH_BATCH_JOB)),
    errors: [...COMMON, 'URL_NOT_ALLOWED', ...IDEMPOTENCY, ...TASK_SERVICE],
  },
  'post /extractTask/batch': {
    data: arr(ref(URL_BATCH_JOB)),
    errors: [...COMMON, 'URL_NOT_ALLOWED', ...IDEMPOTENCY, ...TASK_SERVICE],
  },
  'get /extractTask/{jobId}': { data: ref(TASK_RECORD), errors: BY_ID },
  'delete /extractTask/{jobId}': { data: ref(TASK_RECORD), errors: [...BY_ID, 'TASK_FINISHED'] },
  'post /crawl': {
    data: ref(CRAWL_START_REPLY),
    errors: [...COMMON, 'URL_NOT_ALLOWED', ...LLM, ...TASK_SERVICE],
  },
  'post /crawl/plan': { data: ref(CRAWL_PLAN), errors: [...COMMON, 'URL_NOT_ALLOWED', ...LLM, ...TASK_SERVICE] },
  'get /crawl/active': { data: ref(ACTIVE_CRAWLS), errors: BY_ID.filter((c) => c !== 'TASK_NOT_FOUND') },
  'get /crawl/{id}': { data: ref(CRAWL_STATUS), errors: BY_ID },
  'get /crawl/{id}/errors': { data: ref(CRAWL_ERRORS), errors: BY_ID },
  'delete /crawl/{id}': { data: ref(CRAWL_STATUS), errors: BY_ID },
  'get /usage/tokens': { data: ref(LLM_TOKENS_USAGE), errors: BY_ID.filter((c) => c !== 'TASK_NOT_FOUND') },
  'get /usage/queue': { data: ref(KEY_QUEUE_USAGE), errors: BY_ID.filter((c) => c !== 'TASK_NOT_FOUND') },
  'post /map': { data: ref(MAP_SITE_REPLY), errors: [...COMMON, 'URL_NOT_ALLOWED', ...UPSTREAM] },
};

/** Every bound the API enforces and what happens beyond it: the README's table, and the document's description. */
export const LIMITS_TABLE: [string, string, string][] = [
  ['request body', `${LIMITS.maxBodyBytes} bytes (BODY_LIMIT_BYTES)`, '413 PAYLOAD_TOO_LARGE'],
  ['body content type', 'application/json', '415 UNSUPPORTED_MEDIA_TYPE'],
  ['JSON nesting', `at most ${MAX_JSON_DEPTH} levels`, '400 JSON_TOO_DEEP'],
  ['request line and headers', '16 KiB (Node)', '431 HEADERS_TOO_LARGE'],
  // MAX_PARAM_LENGTH of gateway-app.factory.ts (not imported: that module imports this one).
  ['path parameter (`jobId`)', 'at most 256 characters', '414 URI_TOO_LONG'],
  ['unknown body fields', 'none allowed', '400 VALIDATION_FAILED, field named'],
  [
    '`timeout` (ms)',
    `integer ${LIMITS.minTimeoutMs}–${LIMITS.maxTimeoutMs}, default ${LIMITS.defaultTimeoutMs}`,
    '400 VALIDATION_FAILED',
  ],
  ['`num` (web search)', `integer 1–${LIMITS.maxSearchNum}`, '400 VALIDATION_FAILED'],
  ['`num` (maps)', `integer 1–${LIMITS.maxMapsNum}`, '400 VALIDATION_FAILED'],
  ['`start`', `integer 0–${LIMITS.maxStart}`, '400 VALIDATION_FAILED'],
  ['`q` / each of `querys`', `1–${LIMITS.maxQueryLength} characters`, '400 VALIDATION_FAILED'],
  ['`querys` / `urls` per batch', `1–${LIMITS.maxBatchItems} items`, '400 VALIDATION_FAILED'],
  ['`url`, `webhook`', `http(s), at most ${LIMITS.maxUrlLength} characters`, '400 VALIDATION_FAILED'],
  ['`url`, `webhook` address', 'public unless allowlisted (SSRF_ALLOW_HOSTS)', '422 URL_NOT_ALLOWED'],
  ['`headers` (scrape)', `at most ${LIMITS.maxHeaders}`, '400 VALIDATION_FAILED'],
  ['`waitFor` (scrape, ms)', `0–${LIMITS.maxWaitForMs}`, '400 VALIDATION_FAILED'],
  [
    '`scrapeOptions` of a URL batch',
    `its JSON bytes × the number of URLs at most ${LIMITS.maxBatchScrapeOptionsBytes} (stored with each task)`,
    '400 VALIDATION_FAILED',
  ],
  ['`maxAge` (ms; search, maps, extract, scrape)', `integer 0–${LIMITS.maxCacheAgeMs}`, '400 VALIDATION_FAILED'],
  ['`storeInCache` (search, maps, extract, scrape)', 'boolean', '400 VALIDATION_FAILED'],
  [
    '`Idempotency-Key` header (batches)',
    `1–${LIMITS.maxIdempotencyKeyLength} visible ASCII characters; remembered 24 h per API key`,
    '400 VALIDATION_FAILED; reused with another body: 409 IDEMPOTENCY_KEY_REUSED',
  ],
  ['`hl`', 'a language code: ^[a-zA-Z]{2,3}([-_][a-zA-Z0-9]{2,8})?$', '400 VALIDATION_FAILED'],
  ['`gl`', 'two letters: ^[a-zA-Z]{2}$', '400 VALIDATION_FAILED'],
  ['`cr`', 'countryXX, several joined by |', '400 VALIDATION_FAILED'],
  ['`lr`', 'lang_xx, several joined by |', '400 VALIDATION_FAILED'],
  ['`ll` (maps)', '<lat>,<lng>,<zoom>z, optionally led by @', '400 VALIDATION_FAILED'],
  ['requests per key', 'the key’s rate limit and concurrency cap', '429 RATE_LIMITED with Retry-After'],
];

/** The limits as a Markdown table (README.md carries the same, checked by a test). */
export function limitsMarkdown(): string {
  return [
    '| bound | limit | beyond it |',
    '|---|---|---|',
    ...LIMITS_TABLE.map(([what, limit, beyond]) => `| ${what} | ${limit.replace(/\|/g, '\\|')} | ${beyond} |`),
  ].join('\n');
}

const DESCRIPTION = [
  'Every response is the envelope { requestId, code, errorCode, message, timestamp, data }: `data` is the',
  "operation's result on 200 and { error, retryable, field? } otherwise (docs/errors.md). Batch outcomes are",
  'POSTed to the `webhook` of the submission, signed per Standard Webhooks (see `webhooks`).',
  '',
  '## Limits',
  '',
  limitsMarkdown(),
].join('\n');

/** Sets type, bounds, patterns and defaults of each DTO's schema from its class-validator rules and initialisers. */
function applyDtoConstraints(schemas: Record<string, JsonSchema>): void {
  const storage = getMetadataStorage();
  for (const value of Object.values(contracts)) {
    if (typeof value !== 'function' || !value.name.endsWith('Dto')) continue;
    const schema = schemas[value.name];
    if (!schema) continue;
    const dto = value as unknown as new () => Record<string, unknown>;
    const defaults = new dto();
    const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
    schema.additionalProperties = false;
    for (const meta of storage.getTargetValidationMetadatas(dto, '', true, false)) {
      const prop = properties[meta.propertyName];
      if (!prop) continue;
      const each = meta.each && prop.type === 'array' ? ((prop.items ?? {}) as JsonSchema) : prop;
      const [c0] = (meta.constraints ?? []) as unknown[];
      switch (meta.name) {
        case 'isInt':
          each.type = 'integer';
          break;
        case 'min':
          each.minimum = c0;
          break;
        case 'max':
          each.maximum = c0;
          break;
        case 'maxLength':
          each.maxLength = c0;
          break;
        case 'minLength':
          each.minLength = c0;
          break;
        case 'isNotEmpty':
          if (each.type === 'string') each.minLength = Math.max(1, Number(each.minLength ?? 0));
          break;
        case 'matches':
          if (c0 instanceof RegExp) each.pattern = c0.source;
          break;
        case 'arrayMaxSize':
          prop.maxItems = c0;
          break;
        case 'arrayMinSize':
          prop.minItems = c0;
          break;
        case 'isHttpUrl':
          each.format = 'uri';
          each.pattern = '^[hH][tT][tT][pP][sS]?://';
          each.maxLength = LIMITS.maxUrlLength;
          break;
        case 'isIn':
          if (Array.isArray(c0)) each.enum = [...(c0 as unknown[])];
          break;
        default:
          break;
      }
    }
    for (const [name, prop] of Object.entries(properties)) {
      if (defaults[name] !== undefined) prop.default = defaults[name];
    }
  }
}

/** One error response: the envelope with ErrorData restricted to the codes of this status. */
function errorResponse(codes: ErrorCode[]): Record<string, unknown> {
  const description = codes.map((c) => `${c}${ERROR_RETRYABLE[c] ? ' (retryable)' : ''}`).join(', ');
  // ErrorData with `error` narrowed to these codes.
  const data = {
    allOf: [ref(ERROR_DATA), { properties: { error: { enum: codes } } }],
  } as JsonSchema as Schema<ErrorData>;
  return { description, content: { 'application/json': { schema: envelopeSchema(data, false) } } };
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]),
  );
}

/**
 * The complete OpenAPI 3.1 document of the gateway: request schemas from the DTOs (through @nestjs/swagger, then
 * class-validator's rules for integers, bounds, patterns and defaults), the envelope with a typed `data` for 200 and
 * one response per error status, the webhook payload, and the limits. Deterministic: keys sorted at every level.
 */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const raw = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Trawl: Extraction Gateway API')
      .setVersion('v1')
      .setDescription(DESCRIPTION)
      .addApiKey({ type: 'apiKey', name: 'x-api-key', in: 'header' }, 'x-api-key')
      .addSecurityRequirements('x-api-key')
      .build(),
  );
  const doc = raw as unknown as Record<string, unknown> & {
    paths: Record<string, Record<string, Record<string, unknown>>>;
    components: { schemas: Record<string, JsonSchema> };
  };
  doc.openapi = '3.1.0';
  doc.components.schemas ??= {};
  applyDtoConstraints(doc.components.schemas);
  Object.assign(doc.components.schemas, RESPONSE_SCHEMAS);

  for (const [key, op] of Object.entries(OPERATIONS)) {
    const [method, path] = key.split(' ') as [string, string];
    const operation = doc.paths[`/${API_PREFIX}${path}`]?.[method];
    if (!operation) throw new Error(`OpenAPI: the gateway serves no ${key}`);
    const byStatus = new Map<number, ErrorCode[]>();
    for (const code of op.errors)
      byStatus.set(ERROR_HTTP_STATUS[code], [...(byStatus.get(ERROR_HTTP_STATUS[code]) ?? []), code]);
    const responses: Record<string, unknown> = {
      '200': {
        description: 'Success',
        content: { 'application/json': { schema: envelopeSchema(op.data, true) } },
        ...(op.cached ? { headers: CACHE_HEADERS } : {}),
      },
    };
    for (const [status, codes] of byStatus) responses[String(status)] = errorResponse(codes);
    operation.responses = responses;
  }

  doc.webhooks = {
    taskFinished: {
      post: {
        summary: 'A batch task reached its final state',
        description:
          'POSTed to the submission’s `webhook`, once per job, signed per Standard Webhooks (webhook-id = the ' +
          'outcome id, webhook-timestamp, webhook-signature v1 HMAC-SHA256 with the key’s signing secret). Answer ' +
          '2xx; anything else is retried with backoff.',
        parameters: ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => ({
          name,
          in: 'header',
          required: true,
          schema: { type: 'string' },
        })),
        requestBody: { required: true, content: { 'application/json': { schema: ref(WEBHOOK_PAYLOAD) } } },
        responses: { '200': { description: 'Received (any 2xx).' } },
      },
    },
  };
  return sortKeys(doc) as OpenAPIObject;
}

/** The document as committed in openapi.json: sorted keys, two-space indent, final newline. */
export function serializeOpenApi(doc: OpenAPIObject): string {
  return `${JSON.stringify(doc, null, 2)}\n`;
}
