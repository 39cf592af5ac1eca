import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { TrawlError } from '@trawl/contracts';
import { Piscina } from 'piscina';
import { digestPage, type DigestTask, type PageDigest } from './page-digest.js';

export interface PageWorkPoolOptions {
  /** Worker threads at most (SCRAPE_WORK_THREADS). */
  threads: number;
  /** Time one page's work may take, ms (SCRAPE_WORK_BUDGET_MS); over it the worker is stopped. */
  budgetMs: number;
  /** HTML shorter than this (characters) is digested on the event loop: the thread hop would cost more. */
  inlineBelowChars: number;
  /** Heap of one worker, MiB: a page that needs more fails alone. */
  maxHeapMb?: number;
  /** Tasks that may wait for a thread; more are OVERLOADED. */
  maxQueue?: number;
}

/**
 * The page-work pool: the CPU-heavy steps of a scrape (HTML scan and markdown conversion, PDF text) run here, off
 * the event loop, in piscina worker threads, each task under a time budget. A page over its budget, or one that
 * exhausts a worker's heap, stops that worker and fails its own task with PAGE_TOO_COMPLEX; the event loop (NATS,
 * liveness, other scrapes) never waits for it. Small HTML is digested inline (see `inlineBelowChars`).
 */
export class PageWorkPool {
  private readonly pool: Piscina;

  constructor(private readonly options: PageWorkPoolOptions) {
    this.pool = new Piscina({
      filename: workerFile(),
      minThreads: options.threads,
      maxThreads: options.threads,
      maxQueue: options.maxQueue ?? 256,
      idleTimeout: 60_000,
      resourceLimits: { maxOldGenerationSizeMb: options.maxHeapMb ?? 512 },
    });
  }

  /**
   * Digests one page within the budget and the request's deadline (epoch ms). `what` names the page in errors.
   */
  async digest(task: DigestTask, deadline: number, what: string): Promise<PageDigest> {
    if (task.kind === 'html' && task.html.length < this.options.inlineBelowChars) return unwrap(await digestPage(task));
    const remaining = deadline - Date.now();
    const budget = Math.max(1, Math.min(this.options.budgetMs, remaining));
    const byDeadline = remaining < this.options.budgetMs;
    let outcome;
    try {
      outcome = await this.pool.run(task, {
        signal: AbortSignal.timeout(budget),
        ...(task.kind === 'pdf' ? { transferList: [task.bytes.buffer as ArrayBuffer] } : {}),
      });
    } catch (e) {
      throw this.failure(e, what, budget, byDeadline);
    }
    return unwrap(outcome as Awaited<ReturnType<typeof digestPage>>);
  }

  /** Resolves once a worker has loaded (the first page's budget should not pay for the start-up). */
  async warmUp(): Promise<void> {
    await this.pool.run({ kind: 'html', html: '', markdown: false, checkBrowser: false } satisfies DigestTask);
  }

  stats(): { threads: number; queued: number; completed: number } {
    return { threads: this.pool.threads.length, queued: this.pool.queueSize, completed: this.pool.completed };
  }

  async close(): Promise<void> {
    await this.pool.destroy();
  }

  private failure(e: unknown, what: string, budget: number, byDeadline: boolean): TrawlError {
    const err = e as Error & { code?: string };
    if (err?.name === 'AbortError' || err?.name === 'TimeoutError' || /abort/i.test(err?.message ?? '')) {
      return byDeadline
        ? new TrawlError('UPSTREAM_TIMEOUT', `converting ${what} did not finish before the request's deadline`, {
            cause: e,
          })
        : new TrawlError(
            'PAGE_TOO_COMPLEX',
            `converting ${what} took longer than the ${budget} ms budget; the work was stopped`,
            {
              cause: e,
            },
          );
    }
    if (/queue is at limit|Task queue is at limit/i.test(err?.message ?? '')) {
      return new TrawlError('OVERLOADED', 'the page-work queue is full; retry later', { cause: e });
    }
    if (err?.code === 'ERR_WORKER_OUT_OF_MEMORY') {
      return new TrawlError(
        'PAGE_TOO_COMPLEX',
        `converting ${what} needed more memory than a worker has; the work was stopped`,
        {
          cause: e,
        },
      );
    }
    return new TrawlError(
      'PAGE_TOO_COMPLEX',
      `converting ${what} failed: ${err?.message?.split('\n')[0] ?? String(e)}`,
      { cause: e },
    );
  }
}

function unwrap(outcome: Awaited<ReturnType<typeof digestPage>>): PageDigest {
  if (outcome.ok) return outcome.digest;
  throw TrawlError.fromWire(outcome.error);
}

/** The compiled worker next to this file in a build; from TypeScript sources, the SWC-compiling entry. */
function workerFile(): string {
  const compiled = new URL('./page-work.worker.js', import.meta.url);
  if (existsSync(fileURLToPath(compiled))) return compiled.href;
  return new URL('./page-work.worker.source.mjs', import.meta.url).href;
}
