import {
  IDEMPOTENCY_KEY_PATTERN,
  MapsBatchRequestDto,
  parseDto,
  SearchBatchRequestDto,
  TrawlError,
  UrlBatchRequestDto,
  type TaskSubmitRequest,
  type TraceCarrier,
} from '@trawl/contracts';

const KINDS = { maps: MapsBatchRequestDto, search: SearchBatchRequestDto, url: UrlBatchRequestDto } as const;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseTrace(value: unknown): TraceCarrier | undefined {
  if (value === undefined) return undefined;
  if (!isRecord(value) || Object.values(value).some((v) => typeof v !== 'string') || Object.keys(value).length > 10) {
    throw new TrawlError('VALIDATION_FAILED', 'trace must be an object of at most 10 strings', { field: 'trace' });
  }
  return value as TraceCarrier;
}

/** Validates a `task.submit.v1` payload: its kind, its request DTO (defaults applied), apiKeyId, maxOutstanding, idempotencyKey, trace. */
export function parseTaskSubmitRequest(payload: unknown): TaskSubmitRequest {
  if (!isRecord(payload)) throw new TrawlError('VALIDATION_FAILED', 'payload must be an object', { field: 'body' });
  const { kind, request, apiKeyId, trace, maxOutstanding, idempotencyKey } = payload;
  if (
    idempotencyKey !== undefined &&
    (typeof idempotencyKey !== 'string' || !IDEMPOTENCY_KEY_PATTERN.test(idempotencyKey))
  ) {
    throw new TrawlError('VALIDATION_FAILED', 'Idempotency-Key must be 1-255 visible ASCII characters', {
      field: 'Idempotency-Key',
    });
  }
  if (apiKeyId !== undefined && (typeof apiKeyId !== 'string' || apiKeyId.length > 200)) {
    throw new TrawlError('VALIDATION_FAILED', 'apiKeyId must be a string of at most 200 characters', {
      field: 'apiKeyId',
    });
  }
  if (
    maxOutstanding !== undefined &&
    (typeof maxOutstanding !== 'number' || !Number.isSafeInteger(maxOutstanding) || maxOutstanding < 1)
  ) {
    throw new TrawlError('VALIDATION_FAILED', 'maxOutstanding must be a whole number of at least 1', {
      field: 'maxOutstanding',
    });
  }
  const meta = {
    ...(apiKeyId !== undefined ? { apiKeyId } : {}),
    ...(maxOutstanding !== undefined ? { maxOutstanding } : {}),
    ...(idempotencyKey !== undefined ? { idempotencyKey } : {}),
    ...(trace !== undefined ? { trace: parseTrace(trace) } : {}),
  };
  switch (kind) {
    case 'maps':
      return { kind, request: parseDto(KINDS.maps, request), ...meta };
    case 'search':
      return { kind, request: parseDto(KINDS.search, request), ...meta };
    case 'url':
      return { kind, request: parseDto(KINDS.url, request), ...meta };
    default:
      throw new TrawlError('VALIDATION_FAILED', 'kind must be one of: maps, search, url', { field: 'kind' });
  }
}
