import { UnrecoverableError } from 'bullmq';
import { ERROR_RETRYABLE, isErrorCode, TrawlError, type WireError } from '@trawl/contracts';
import { FleetUnavailableError } from '@trawl/messaging';

/**
 * An attempt that met an outage (no responder for its extractor, a lost NATS connection) rather than a failure of
 * the extraction: the worker puts the job back without counting the attempt (FleetMonitor.hold).
 */
export class FleetOutageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FleetOutageError';
    this.stack = `SERVICE_UNAVAILABLE: ${message}`;
  }
}

/**
 * What a processor throws for a failed attempt. Its message is `<CODE>: <message>` (BullMQ keeps it as
 * `failedReason`) and its stack is that line only, so a task's `stacktrace` names causes without our internals. A
 * permanent error is an UnrecoverableError: BullMQ fails the job at once instead of retrying. An outage is a
 * FleetOutageError, which is not an attempt at all.
 */
export function toAttemptError(e: unknown): Error {
  if (e instanceof FleetUnavailableError) return new FleetOutageError(e.message);
  const wire: WireError =
    e instanceof TrawlError
      ? e.toWire()
      : { code: 'INTERNAL', message: 'internal error while running the task', retryable: false };
  const line = `${wire.code}: ${wire.message}`;
  const error = wire.retryable ? new Error(line) : new UnrecoverableError(line);
  error.stack = line;
  return error;
}

/** The WireError of a failed job, read back from its `failedReason`. */
export function wireErrorOf(failedReason: string | undefined): WireError | null {
  if (!failedReason) return null;
  const m = /^([A-Z_]+): ([\s\S]*)$/.exec(failedReason);
  if (m && isErrorCode(m[1])) return { code: m[1], message: m[2], retryable: ERROR_RETRYABLE[m[1]] };
  return { code: 'INTERNAL', message: failedReason, retryable: false };
}
