import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * NATS header on a request whose caller may abandon it (ADR 0043): its value is the request's packet id, which an
 * `extract.abandon.v1` notice names when the caller stops waiting (task-service, for a cancelled task).
 */
export const ABANDON_KEY_HEADER = 'Trawl-Abandon-Key';

const current = new AsyncLocalStorage<AbortSignal>();

/**
 * The abandon signal of the NATS request being handled: aborted when its caller sent `extract.abandon.v1` for it.
 * Undefined outside a request that carried ABANDON_KEY_HEADER (an HTTP request, a request from the gateway).
 * DrainingNatsServer sets it around each handler; a handler hands it to whatever holds a resource for the request.
 */
export function currentAbandonSignal(): AbortSignal | undefined {
  return current.getStore();
}

/** Runs `fn` (a request's handler) with `signal` as its `currentAbandonSignal()`. */
export function withAbandonSignal<T>(signal: AbortSignal, fn: () => T): T {
  return current.run(signal, fn);
}

/** A request held under its abandon key until its reply is sent. */
export interface HeldRequest {
  readonly signal: AbortSignal;
  /** The request ended (its reply sent, or refused): its key is forgotten. Idempotent. */
  release(): void;
}

/**
 * The requests a replica is handling that their callers may abandon, by abandon key. `hold(key)` gives a request its
 * signal, until `release()` (its reply went out); `abandon(key)` aborts it. A key no request here holds is ignored
 * (the notice goes to every replica; one holds the request, or none once it ended).
 */
export class RequestAbandons {
  private readonly running = new Map<string, AbortController>();

  /** Requests held now. */
  get size(): number {
    return this.running.size;
  }

  hold(key: string): HeldRequest {
    const controller = new AbortController();
    this.running.set(key, controller);
    return {
      signal: controller.signal,
      release: () => {
        if (this.running.get(key) === controller) this.running.delete(key);
      },
    };
  }

  /** Aborts the request held under `key`; false when none is held here. */
  abandon(key: string, reason: Error): boolean {
    const controller = this.running.get(key);
    if (!controller) return false;
    this.running.delete(key);
    controller.abort(reason);
    return true;
  }
}
