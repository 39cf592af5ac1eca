import type { ErrorData } from './api-types.generated.js';

/** The error codes of docs/errors.md, as openapi.json lists them. */
export type ErrorCode = ErrorData['error'];

export interface TrawlApiErrorInit {
  status: number;
  code: ErrorCode;
  message: string;
  retryable: boolean;
  requestId?: string;
  field?: string;
}

/** A failure envelope: `code` is the envelope's `data.error`, `status` the HTTP status. */
export class TrawlApiError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly retryable: boolean;
  readonly requestId: string | undefined;
  /** The request field the error is about, where there is one. */
  readonly field: string | undefined;

  constructor(init: TrawlApiErrorInit) {
    super(init.message);
    this.name = 'TrawlApiError';
    this.status = init.status;
    this.code = init.code;
    this.retryable = init.retryable;
    this.requestId = init.requestId;
    this.field = init.field;
  }
}
