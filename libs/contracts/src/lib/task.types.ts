import type { ScrapeOptions } from './dto/scrape-browser.types.js';
import type { ExtractType } from './extract-type.constants.js';
import type { WireError } from './error-codes.constants.js';
import type { MapsBatchRequestDto } from './dto/maps-batch-request.dto.js';
import type { SearchBatchRequestDto } from './dto/search-batch-request.dto.js';
import type { UrlBatchRequestDto } from './dto/url-batch-request.dto.js';
import type { UrlParams } from './dto/url-params.validator.js';
import type { UpstreamEngine } from './upstream-engine.constants.js';

/** Task states: BullMQ's. */
export const TASK_STATUSES = [
  'completed',
  'failed',
  'delayed',
  'active',
  'waiting',
  'waiting-children',
  'unknown',
] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

/** The job options every batch job carries (the spec's values). */
export interface BatchJobOpts {
  attempts: number;
  removeOnComplete: number;
  removeOnFail: number;
  backoff: { type: string; delay: number };
}

/** Echo of a maps batch (one job per call). */
export interface MapsBatchJobData {
  kind: 'maps';
  querys: string[];
  ll: string;
  hl: string;
  start: number;
  num: number;
  timeout: number;
  webhook: string;
  /** Extension of the spec: the engine asked for (absent: the service's configuration). */
  engine?: UpstreamEngine;
}

/** Echo of a search batch (one job per call). */
export interface SearchBatchJobData {
  kind: 'search';
  querys: string[];
  start: number;
  num: number;
  hl: string;
  gl: string;
  cr?: string;
  lr?: string;
  timeout: number;
  webhook: string;
  /** Extension of the spec: the engine asked for (absent: the service's configuration). */
  engine?: UpstreamEngine;
}

/** Echo of one URL of a URL batch (one job per URL); `url` has `params` appended. */
export interface UrlJobData {
  kind: 'url';
  url: string;
  timeout: number;
  /** Absent for a batch submitted without one (through a peer's API): lookup only. */
  webhook?: string;
  type: ExtractType;
  params?: UrlParams;
  /** Extension of the spec: the engine asked for (absent: the service's configuration). */
  engine?: UpstreamEngine;
  /** Type `scrape`: formats and browser options (ADR 0019). */
  scrapeOptions?: ScrapeOptions;
}

export type BatchJobData = MapsBatchJobData | SearchBatchJobData | UrlJobData;

/** An element of `data` in a batch submission's response: BullMQ's Job.toJSON() shape. */
export interface BatchJob {
  name: string;
  data: BatchJobData;
  opts: BatchJobOpts;
  id: string;
  progress: number;
  returnvalue: unknown;
  stacktrace: string[] | null;
  priority: number;
  attemptsStarted: number;
  attemptsMade: number;
  timestamp: number;
  queueQualifiedName: string;
}

/** `data` of GET /extractTask/{jobId}. */
export interface TaskRecord {
  taskId: string;
  status: TaskStatus;
  params: Record<string, unknown>;
  /** The task's result; null until it completes. */
  data: unknown;
  /** Error of the last failed attempt, when there is one. */
  error?: WireError | null;
  progress: number;
  attemptsMade: number;
  finishedOn: number | null;
  processedOn: number | null;
  stacktrace: string[];
}

/**
 * What a submission carries beside its request: the submitting key's id (the task's owner; selects its webhook secret)
 * and that key's own cap of outstanding jobs, when it has one (else task-service's TASK_MAX_OUTSTANDING_PER_KEY).
 */
export interface TaskSubmitMeta {
  trace?: TraceCarrier;
  apiKeyId?: string;
  maxOutstanding?: number;
  /**
   * The caller's `Idempotency-Key` (IDEMPOTENCY_KEY_PATTERN): the same key with the same request within 24 h answers
   * the first submission's job objects and creates nothing; with another request, IDEMPOTENCY_KEY_REUSED. Scoped to
   * `apiKeyId`.
   */
  idempotencyKey?: string;
}

/** NATS payload of `task.submit.v1`. */
export type TaskSubmitRequest =
  | ({ kind: 'maps'; request: MapsBatchRequestDto } & TaskSubmitMeta)
  | ({ kind: 'search'; request: SearchBatchRequestDto } & TaskSubmitMeta)
  | ({ kind: 'url'; request: UrlBatchRequestDto } & TaskSubmitMeta);

export interface TaskSubmitReply {
  jobs: BatchJob[];
}

/** NATS payload of `task.get.v1`. */
export interface TaskGetRequest {
  jobId: string;
  /**
   * Id of the API key asking. A task is found only by the key that submitted it (its `apiKeyId`); another key's
   * lookup is answered exactly as an unknown id is (TASK_NOT_FOUND).
   */
  apiKeyId?: string;
}

/** NATS payload of `task.cancel.v1`: as lookup, a task is found only by the key that submitted it. */
export interface TaskCancelRequest {
  jobId: string;
  apiKeyId?: string;
}

/** W3C trace context carried in job data (traceparent, tracestate). */
export type TraceCarrier = Record<string, string>;

export const TASK_EVENTS = ['task.completed', 'task.failed'] as const;
export type TaskEventName = (typeof TASK_EVENTS)[number];

/** JetStream payload of `task.finished.v1`: one per job reaching its final state. */
export interface TaskFinishedEvent {
  /** Stable id of this outcome; the webhook's `webhook-id`. */
  eventId: string;
  event: TaskEventName;
  /** Absent when the job was submitted without a webhook: the dispatcher has nothing to deliver. */
  webhook?: string;
  /** Id of the API key that submitted the job; selects the signing secret. */
  apiKeyId?: string;
  task: TaskRecord;
  trace?: TraceCarrier;
  occurredAt: number;
}

/** One query's outcome inside a maps or search batch's result (`data.results[i]` of its task record). */
export type BatchQueryOutcome<T = unknown> =
  { query: string; status: 'completed'; data: T } | { query: string; status: 'failed'; error: WireError };

/** Result of a maps or search batch job: one entry per query, in the order of `querys`. */
export interface BatchTaskResult<T = unknown> {
  results: BatchQueryOutcome<T>[];
  completed: number;
  failed: number;
}

/** JetStream payload of `task.delivery-failed.v1`: an outcome whose webhook delivery gave up. */
export interface WebhookDeadLetter {
  outcome: TaskFinishedEvent;
  reason: string;
  attempts: number;
  lastStatus: number | null;
  deadLetteredAt: number;
}
