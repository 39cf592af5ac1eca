import { CRAWL_DOCUMENT } from './crawl-document.schema.js';
import {
  ACTIVE_CRAWL,
  ACTIVE_CRAWLS,
  CRAWL_ERROR,
  CRAWL_ERRORS,
  CRAWL_START_REPLY,
  CRAWL_STATUS,
  MAP_LINK,
  MAP_SITE_REPLY,
} from './crawl-response.schema.js';
import { CRAWL_PLAN, CRAWL_PLAN_OPTIONS } from './crawl-plan.schema.js';
import { ERROR_DATA, WIRE_ERROR } from './envelope.schema.js';
import { KEY_QUEUE_JOBS, KEY_QUEUE_USAGE } from './key-queue.schema.js';
import { LLM_TOKENS_PERIOD, LLM_TOKENS_USAGE } from './llm-tokens.schema.js';
import { EXTRACT_RESPONSE, EXTRACT_RESPONSES } from './results/extract-result.schema.js';
import { MAPS_PLACE_ITEM, MAPS_SEARCH_DATA, MAPS_SEARCH_RESPONSE, PLACE_RECORD } from './results/maps-result.schema.js';
import { RESULT_META } from './results/result-meta.schema.js';
import { MONEY, RETAIL_RECORD } from './results/retail-result.schema.js';
import { SCRAPE_RESULT } from './results/scrape-result.schema.js';
import { WEB_SEARCH_RESULT } from './results/web-search-result.schema.js';
import { schemaName, type JsonSchema, type Named } from './schema/json-schema.builder.js';
import {
  BATCH_JOB_OPTS,
  MAPS_BATCH_JOB,
  MAPS_BATCH_JOB_DATA,
  SEARCH_BATCH_JOB,
  SEARCH_BATCH_JOB_DATA,
  TASK_RECORD,
  URL_BATCH_JOB,
  URL_JOB_DATA,
  WEBHOOK_PAYLOAD,
} from './task-response.schema.js';

/**
 * Every named shape the HTTP API answers (the OpenAPI document's `components.schemas` beside the request DTOs'):
 * each is the one definition of its contract type (`Infer<typeof SCHEMA>`, ADR 0035).
 */
const NAMED: Named<unknown>[] = [
  ERROR_DATA,
  WIRE_ERROR,
  WEB_SEARCH_RESULT,
  MAPS_PLACE_ITEM,
  MAPS_SEARCH_DATA,
  MAPS_SEARCH_RESPONSE,
  PLACE_RECORD,
  MONEY,
  RESULT_META,
  RETAIL_RECORD,
  SCRAPE_RESULT,
  ...EXTRACT_RESPONSES,
  EXTRACT_RESPONSE,
  TASK_RECORD,
  BATCH_JOB_OPTS,
  MAPS_BATCH_JOB_DATA,
  SEARCH_BATCH_JOB_DATA,
  URL_JOB_DATA,
  MAPS_BATCH_JOB,
  SEARCH_BATCH_JOB,
  URL_BATCH_JOB,
  WEBHOOK_PAYLOAD,
  CRAWL_DOCUMENT,
  CRAWL_PLAN_OPTIONS,
  CRAWL_PLAN,
  CRAWL_START_REPLY,
  CRAWL_STATUS,
  CRAWL_ERROR,
  CRAWL_ERRORS,
  ACTIVE_CRAWL,
  ACTIVE_CRAWLS,
  MAP_LINK,
  MAP_SITE_REPLY,
  LLM_TOKENS_PERIOD,
  LLM_TOKENS_USAGE,
  KEY_QUEUE_JOBS,
  KEY_QUEUE_USAGE,
];

/** The response schemas by component name, as plain JSON. */
export const RESPONSE_SCHEMAS: Record<string, JsonSchema> = Object.fromEntries(
  NAMED.map((schema) => [schemaName(schema), JSON.parse(JSON.stringify(schema)) as JsonSchema]),
);
