import type { OutcomeEvent } from './crawl.types.js';
import type { WireError } from './envelope.schema.js';
import type { MapsBatchRequestDto } from './dto/maps-batch-request.dto.js';
import type { SearchBatchRequestDto } from './dto/search-batch-request.dto.js';
import type { UrlBatchRequestDto } from './dto/url-batch-request.dto.js';
import type { BatchJob, TaskRecord } from './task-response.schema.js';

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
  outcome: OutcomeEvent;
  reason: string;
  attempts: number;
  lastStatus: number | null;
  deadLetteredAt: number;
}
