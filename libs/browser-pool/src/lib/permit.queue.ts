import { TrawlError } from '@trawl/contracts';
import { abandonReason } from './deadline-bound.util.js';

interface Waiter {
  resolve(): void;
  reject(e: Error): void;
  timer: NodeJS.Timeout;
  /** Takes the waiter's abort listener off its signal. */
  detach(): void;
}

/**
 * A counting semaphore with a bounded FIFO wait queue and per-waiter deadlines: `acquire(deadline)` resolves when a
 * permit is free, rejects at once with OVERLOADED when the queue is full, and with UPSTREAM_TIMEOUT when the
 * deadline passes while waiting (time in the queue counts against the task). A waiter whose `signal` aborts leaves the
 * queue and rejects with the signal's reason (its caller gave the task up).
 */
export class PermitQueue {
  private inUse = 0;
  private readonly waiters: Waiter[] = [];
  private closedWith: Error | undefined;

  constructor(
    private readonly permits: number,
    private readonly queueLimit: number,
  ) {}

  get busy(): number {
    return this.inUse;
  }

  get queued(): number {
    return this.waiters.length;
  }

  acquire(deadline: number, signal?: AbortSignal): Promise<void> {
    if (this.closedWith) return Promise.reject(this.closedWith);
    if (signal?.aborted) return Promise.reject(abandonReason(signal));
    if (this.inUse < this.permits && this.waiters.length === 0) {
      this.inUse++;
      return Promise.resolve();
    }
    if (this.waiters.length >= this.queueLimit) {
      return Promise.reject(
        new TrawlError(
          'OVERLOADED',
          `browser pool is full: ${this.inUse} pages busy and ${this.waiters.length} tasks waiting`,
        ),
      );
    }
    return new Promise<void>((resolve, reject) => {
      const leave = (e: Error) => {
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) this.waiters.splice(i, 1);
        clearTimeout(waiter.timer);
        waiter.detach();
        reject(e);
      };
      const onAbort = () => leave(abandonReason(signal));
      const waiter: Waiter = {
        resolve: () => {
          waiter.detach();
          resolve();
        },
        reject: (e) => {
          waiter.detach();
          reject(e);
        },
        timer: setTimeout(
          () => leave(new TrawlError('UPSTREAM_TIMEOUT', 'the deadline passed while waiting for a free browser page')),
          Math.max(0, deadline - Date.now()),
        ),
        detach: () => signal?.removeEventListener('abort', onAbort),
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  release(): void {
    const next = this.waiters.shift();
    if (next) {
      clearTimeout(next.timer);
      next.resolve(); // the permit passes straight to the next waiter
    } else {
      this.inUse = Math.max(0, this.inUse - 1);
    }
  }

  /** Rejects every waiter and every later acquire with `error`. */
  close(error: Error): void {
    this.closedWith = error;
    for (const w of this.waiters.splice(0)) {
      clearTimeout(w.timer);
      w.reject(error);
    }
  }
}
