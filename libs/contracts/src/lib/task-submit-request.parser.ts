import { MapsBatchRequestDto } from './dto/maps-batch-request.dto.js';
import { SearchBatchRequestDto } from './dto/search-batch-request.dto.js';
import { isTraceCarrier, MAX_TRACE_ENTRIES } from './dto/trace-carrier.validator.js';
import { UrlBatchRequestDto } from './dto/url-batch-request.dto.js';
import { parseDto } from './dto.parser.js';
import { TrawlError } from './error-codes.constants.js';
import { IDEMPOTENCY_KEY_PATTERN } from './limits.constants.js';
import type { TaskSubmitRequest, TraceCarrier } from './task.types.js';

const KINDS = { maps: MapsBatchRequestDto, search: SearchBatchRequestDto, url: UrlBatchRequestDto } as const;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseTrace(value: unknown): TraceCarrier | undefined {
  if (value === undefined) return undefined;
  if (!isTraceCarrier(value)) {
    throw new TrawlError('VALIDATION_FAILED', `trace must be an object of at most ${MAX_TRACE_ENTRIES} strings`, {
      field: 'trace',
    });
  }
  return value;
}

/**
 * Validates a `task.submit.v1` payload (the row's request check, SUBJECT_TABLE.taskSubmit): its kind, its request DTO (defaults applied), apiKeyId, maxOutstanding, idempotencyKey, trace.
 */
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
