/**
 * The part of a request's `timeout` the upstream work may use: the rest (a tenth, at most 500 ms) is left for the
 * reply to travel back before the caller's NATS request gives up, so the caller sees our error, not its own timeout.
 */
export function replyDeadlineMs(timeoutMs: number): number {
  return Math.max(1, timeoutMs - Math.min(500, Math.round(timeoutMs / 10)));
}
