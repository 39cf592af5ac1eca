/**
 * The common response envelope of every operation, success or failure. Integer `code`, `errorCode` and `timestamp`
 * everywhere, as the samples carry them (the spec's schemas type them as string/object for some operations; the
 * samples win, see docs/decisions/0001-envelope-types.md).
 */
export interface Envelope<T> {
  /** UUID of this request; also sent as the `x-request-id` response header. */
  requestId: string;
  /** 0 on success; the HTTP status on failure. */
  code: number;
  /** 200 on success; the HTTP status on failure. */
  errorCode: number;
  /** `success` on success; the cause otherwise. */
  message: string;
  /** Epoch milliseconds. */
  timestamp: number;
  data: T;
}

/** `data` of a failure envelope. */
export interface ErrorData {
  error: string;
  retryable: boolean;
  field?: string;
}

export const SUCCESS_MESSAGE = 'success';
