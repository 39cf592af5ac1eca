import { ERROR_CODES } from './error-codes.constants.js';
import * as s from './schema/json-schema.builder.js';

export const SUCCESS_MESSAGE = 'success';

/**
 * The common response envelope of every operation, success or failure, around `data`: the operation's result on
 * success (`code` 0), ErrorData on failure (`code` the HTTP status). Integer `code`, `errorCode` and `timestamp`
 * everywhere, as the samples carry them (the spec's schemas type them as string/object for some operations; the
 * samples win, see docs/decisions/0001-envelope-types.md).
 */
export function envelopeSchema<T>(data: s.Schema<T>, success: boolean) {
  return s.object({
    /** UUID of this request; also sent as the `x-request-id` response header. */
    requestId: s.formatted('uuid', 'Also the x-request-id response header.'),
    /** 0 on success; the HTTP status on failure. */
    code: success ? s.constant(0) : s.int('The HTTP status.'),
    /** 200 on success; the HTTP status on failure. */
    errorCode: success ? s.constant(200) : s.int('The HTTP status.'),
    /** `success` on success; the cause otherwise. */
    message: success ? s.constant(SUCCESS_MESSAGE) : s.str('The cause.'),
    /** Epoch milliseconds. */
    timestamp: s.int('Epoch ms.'),
    data,
  });
}
export type Envelope<T> = s.Infer<ReturnType<typeof envelopeSchema<T>>>;

/** `data` of a failure envelope. */
export const ERROR_DATA = s.named(
  'ErrorData',
  s.object({
    error: s.enumOf(ERROR_CODES),
    retryable: s.bool(),
    field: s.optional(s.str('The request field the error is about.')),
  }),
);
export type ErrorData = s.Infer<typeof ERROR_DATA>;

/** An error as it crosses NATS: in an RPC reply's `err`, and in a failed task's outcome. */
export const WIRE_ERROR = s.named(
  'WireError',
  s.object({
    code: s.enumOf(ERROR_CODES),
    message: s.str(),
    retryable: s.bool(),
    /** The request field the error is about, where there is one. */
    field: s.optional(s.str()),
  }),
);
export type WireError = s.Infer<typeof WIRE_ERROR>;
