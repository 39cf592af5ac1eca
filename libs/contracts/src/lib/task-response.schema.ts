import type { ScrapeOptions } from './dto/scrape-options.dto.js';
import { WIRE_ERROR } from './envelope.schema.js';
import { EXTRACT_TYPES } from './extract-type.constants.js';
import { URL_PARAMS } from './results/extract-result.schema.js';
import * as s from './schema/json-schema.builder.js';
import { TASK_EVENTS, TASK_STATUSES } from './task.types.js';
import { UPSTREAM_ENGINES } from './upstream-engine.constants.js';

/** The job options every batch job carries (the spec's values). */
export const BATCH_JOB_OPTS = s.named(
  'BatchJobOpts',
  s.object({
    attempts: s.int(),
    removeOnComplete: s.int(),
    removeOnFail: s.int(),
    backoff: s.object({ type: s.str(), delay: s.int() }),
  }),
);
export type BatchJobOpts = s.Infer<typeof BATCH_JOB_OPTS>;

/** What a maps and a search batch both echo: the queries, the paging, the language, the deadline and the webhook. */
const QUERY_BATCH_FIELDS = {
  querys: s.arr(s.str()),
  hl: s.str(),
  start: s.int(),
  num: s.int(),
  timeout: s.int(),
  webhook: s.str(),
  /** Extension of the spec: the engine asked for (absent: the service's configuration). */
  engine: s.optional(s.enumOf(UPSTREAM_ENGINES)),
  /** Each result carries `meta` (docs/result-meta.md); present only when asked. */
  meta: s.optional(s.bool('Each result carries `meta` (parser, version, empty fields).')),
};

/** Echo of a maps batch (one job per call). */
export const MAPS_BATCH_JOB_DATA = s.named(
  'MapsBatchJobData',
  s.object({ kind: s.constant('maps'), ...QUERY_BATCH_FIELDS, ll: s.str() }),
);
export type MapsBatchJobData = s.Infer<typeof MAPS_BATCH_JOB_DATA>;

/** Echo of a search batch (one job per call). */
export const SEARCH_BATCH_JOB_DATA = s.named(
  'SearchBatchJobData',
  s.object({
    kind: s.constant('search'),
    ...QUERY_BATCH_FIELDS,
    gl: s.str(),
    cr: s.optional(s.str()),
    lr: s.optional(s.str()),
  }),
);
export type SearchBatchJobData = s.Infer<typeof SEARCH_BATCH_JOB_DATA>;

/** Echo of one URL of a URL batch (one job per URL); `url` has `params` appended. */
export const URL_JOB_DATA = s.named(
  'UrlJobData',
  s.object({
    kind: s.constant('url'),
    url: s.str('With `params` appended.'),
    timeout: s.int(),
    /** Absent for a batch submitted without one (through a peer's API): lookup only. */
    webhook: s.optional(s.str()),
    type: s.enumOf(EXTRACT_TYPES),
    params: s.optional(URL_PARAMS),
    engine: QUERY_BATCH_FIELDS.engine,
    meta: QUERY_BATCH_FIELDS.meta,
    /** POST /scrape's per-page options (ADR 0019, ADR 0039). */
    scrapeOptions: s.optional(
      s.anyObjectOf<ScrapeOptions>('Type `scrape`: the page options asked for, as POST /scrape takes them.'),
    ),
  }),
);
export type UrlJobData = s.Infer<typeof URL_JOB_DATA>;

export type BatchJobData = MapsBatchJobData | SearchBatchJobData | UrlJobData;

/** A task's progress: the share of a batch's queries that settled, whole percent (0 for a single URL until it ends). */
const PROGRESS: s.Schema<number> = {
  ...s.int(
    'Percent of a batch’s queries settled, whole, 0-100 (100 once the batch has its result); a URL task stays 0.',
  ),
  minimum: 0,
  maximum: 100,
};

/** An element of `data` in a batch submission's response (BullMQ's Job.toJSON() shape), its `data` of type D. */
function batchJobSchema<D>(data: s.Schema<D>) {
  return s.object({
    name: s.str(),
    data,
    opts: s.ref(BATCH_JOB_OPTS),
    id: s.str('The job id: use it with GET /extractTask/{jobId}; the webhook carries it as taskId.'),
    progress: PROGRESS,
    returnvalue: s.anyValue('null at submission.'),
    stacktrace: s.nullable(s.arr(s.str())),
    priority: s.int(
      'Fair share (ADR 0021): the job’s rank among its API key’s outstanding jobs, 1 first (a maps or search batch: ' +
        'its first query’s); lower runs first, so each key’s first job runs before any key’s second.',
    ),
    attemptsStarted: s.int(),
    attemptsMade: s.int(),
    timestamp: s.int('Epoch ms.'),
    queueQualifiedName: s.str(),
  });
}
export type BatchJob<D extends BatchJobData = BatchJobData> = s.Infer<ReturnType<typeof batchJobSchema<D>>>;

export const MAPS_BATCH_JOB = s.named('MapsBatchJob', batchJobSchema(s.ref(MAPS_BATCH_JOB_DATA)));
export const SEARCH_BATCH_JOB = s.named('SearchBatchJob', batchJobSchema(s.ref(SEARCH_BATCH_JOB_DATA)));
export const URL_BATCH_JOB = s.named('UrlBatchJob', batchJobSchema(s.ref(URL_JOB_DATA)));

/** `data` of GET /extractTask/{jobId}. */
export const TASK_RECORD = s.named(
  'TaskRecord',
  s.object({
    taskId: s.str(),
    status: s.enumOf(TASK_STATUSES),
    params: s.anyObject('The job data as submitted (see the batch operations).'),
    /** The task's result; null until it completes. */
    data: s.anyValue('The result: null until completed. A maps/search batch: { results, completed, failed }.'),
    /** Error of the last failed attempt, when there is one. */
    error: s.optional(s.nullable(s.ref(WIRE_ERROR))),
    progress: PROGRESS,
    attemptsMade: s.int(),
    finishedOn: s.nullable(s.int('Epoch ms.')),
    processedOn: s.nullable(s.int('Epoch ms.')),
    stacktrace: s.arr(s.str()),
  }),
);
export type TaskRecord = s.Infer<typeof TASK_RECORD>;

/** The webhook request body: the task record with the event name (libs/webhooks webhookBody). */
export const WEBHOOK_PAYLOAD = s.named('WebhookPayload', s.extend(TASK_RECORD, { event: s.enumOf(TASK_EVENTS) }));
export type WebhookPayload = s.Infer<typeof WEBHOOK_PAYLOAD>;
