import { TrawlError } from '@trawl/contracts';

/** A cleanup step whose bound ran out: the context is closed rather than waited for. */
export class CleanupTimeoutError extends Error {}

/** A cleanup's bound: races one step against what is left of the cleanup's budget. */
export type Bound = <T>(step: Promise<T>) => Promise<T>;

/**
 * Races each step of one cleanup against what is left of its budget (epoch ms `until`). A step that does not settle in
 * time rejects with CleanupTimeoutError; its own promise is left to settle (or fail) on its own.
 */
export function cleanupBound(until: number): Bound {
  return <T>(step: Promise<T>) => {
    step.catch(() => undefined);
    let timer: NodeJS.Timeout | undefined;
    const out = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new CleanupTimeoutError('cleanup step ran out of time')),
        Math.max(1, until - Date.now()),
      );
    });
    return Promise.race([step, out]).finally(() => clearTimeout(timer));
  };
}

/** `promise`, or UPSTREAM_TIMEOUT with `message` when the deadline (epoch ms) passes first. */
export function raceDeadline<T>(promise: Promise<T>, deadline: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TrawlError('UPSTREAM_TIMEOUT', message)), Math.max(1, deadline - Date.now()));
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Why a task given up by its caller ends: the signal's reason when it is a TrawlError, else TASK_CANCELLED (ADR 0043). */
export function abandonReason(signal: AbortSignal | undefined): TrawlError {
  if (signal?.reason instanceof TrawlError) return signal.reason;
  return new TrawlError('TASK_CANCELLED', 'the caller gave the browser task up', { retryable: false });
}
