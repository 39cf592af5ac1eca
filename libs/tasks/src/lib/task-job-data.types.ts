import type { BatchJobData, RpcRequest, SUBJECTS, TraceCarrier, UrlBatchWebhookOptionsDto } from '@trawl/contracts';

/** What a job keeps beside the caller's parameters; never echoed back. */
export interface TaskJobMeta {
  /** Id of the API key that submitted the job (selects the webhook signing secret). */
  apiKeyId?: string;
  trace?: TraceCarrier;
  /** When the job began to wait for its extractor fleet (FleetMonitor), ms since the epoch. */
  fleetWaitSince?: number;
  /**
   * A job of a URL batch submitted with `webhookOptions` (ADR 0028): its webhook gets the batch's events (one
   * `batch_scrape.page` for this job, instead of its `task.*` outcome); `total` is the batch's job count.
   */
  batchEvents?: { options: UrlBatchWebhookOptionsDto; total: number };
}

/** Data of a job the caller sees: a URL task, or the parent of a maps or search batch. */
export type TaskJobData = BatchJobData & TaskJobMeta;

/** What a query keeps beside its request: its batch's trace, and the key whose cap it counts against. */
export interface QueryJobMeta {
  trace?: TraceCarrier;
  fleetWaitSince?: number;
  /**
   * Id of the API key whose cap of outstanding jobs the query counts against (its batch's `apiKeyId`), released when
   * the query settles. Not `apiKeyId`: a query is not a task its key may look up or cancel on its own (ownsTask).
   */
  quotaKeyId?: string;
}

/** Data of one query of a maps or search batch (a child job). */
export type QueryJobData =
  | ({ kind: 'maps-query'; request: RpcRequest<typeof SUBJECTS.searchMaps> } & QueryJobMeta)
  | ({ kind: 'search-query'; request: RpcRequest<typeof SUBJECTS.searchWeb> } & QueryJobMeta);

/** The caller's parameters of a job: its data without what we keep beside them. */
export function echoOf(data: TaskJobData): BatchJobData {
  const {
    apiKeyId: _apiKeyId,
    trace: _trace,
    fleetWaitSince: _fleetWaitSince,
    batchEvents: _batchEvents,
    ...echo
  } = data;
  return echo;
}
