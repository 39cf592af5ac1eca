import { TrawlError } from '@trawl/contracts';
import type { Clock } from '@trawl/safe-fetch';

/**
 * The time a request has left, from its `timeout`. One deadline covers every upstream fetch of the request (several
 * result pages share it), so the reply is ready before the caller's NATS request gives up.
 */
export class Deadline {
  private readonly endsAt: number;

  constructor(
    readonly timeoutMs: number,
    private readonly now: Clock = Date.now,
  ) {
    this.endsAt = now() + timeoutMs;
  }

  remainingMs(): number {
    return Math.max(0, this.endsAt - this.now());
  }

  /** Throws UPSTREAM_TIMEOUT when no time is left. */
  check(what: string): void {
    if (this.remainingMs() <= 0)
      throw new TrawlError('UPSTREAM_TIMEOUT', `${what}: the ${this.timeoutMs} ms timeout passed`);
  }
}
