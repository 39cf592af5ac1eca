import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MessageChannel } from 'node:worker_threads';
import { TrawlError } from '@trawl/contracts';
import { Piscina } from 'piscina';
import { AdHider } from './ad-hider.extractor.js';
import {
  digestPage,
  type DigestOutcome,
  type DigestTask,
  type DigestTools,
  type PageDigest,
} from './page-digest.extractor.js';
import type { PageWorkData, PageWorkMessage } from './page-work.worker.js';

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
  /**
   * The ad blocker's engine, serialized (`AdBlocker.serialize()`): each thread, and the inline path, deserializes it
   * once and hides the elements its element-hiding rules hide for tasks with `hideAds` (ADR 0030). Without it
   * nothing is hidden.
   */
  adFilters?: Uint8Array;
}

/**
 * The page-work pool: the CPU-heavy steps of a scrape (HTML scan and markdown conversion, PDF text) run here, off
 * the event loop, in piscina worker threads, each task under a time budget. A page over its budget, or one that
 * exhausts a worker's heap, stops that worker and fails its own task with PAGE_TOO_COMPLEX; the event loop (NATS,
 * liveness, other scrapes) never waits for it. Small HTML is digested inline (see `inlineBelowChars`).
 */
export class PageWorkPool {
  private readonly pool: Piscina;
  /** What the inline path's digests use (the threads build their own from `adFilters`). */
  private readonly inlineTools: DigestTools;

  constructor(private readonly options: PageWorkPoolOptions) {
    this.inlineTools = options.adFilters ? { adHider: new AdHider(options.adFilters) } : {};
    const workerData: PageWorkData = options.adFilters ? { adFilters: options.adFilters } : {};
    this.pool = new Piscina({
      filename: workerFile(),
      workerData,
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
    if (task.kind === 'html' && task.html.length < this.options.inlineBelowChars)
      return unwrap(await digestPage(task, this.inlineTools));
    // The budget runs from the moment a worker starts the task (a page waiting for a thread is not charged for the
    // wait); the request's deadline bounds the wait and the work together.
    const abort = new AbortController();
    let overBudget = false;
    const { port1, port2 } = new MessageChannel();
    let budgetTimer: NodeJS.Timeout | undefined;
    port1.once('message', () => {
      budgetTimer = setTimeout(() => {
        overBudget = true;
        abort.abort();
      }, this.options.budgetMs);
      port1.close();
    });
    const deadlineTimer = setTimeout(() => abort.abort(), Math.max(1, deadline - Date.now()));
    const message: PageWorkMessage = { task, started: port2 };
    const transferList = [port2, ...(task.kind === 'pdf' ? [task.bytes.buffer as ArrayBuffer] : [])];
    let outcome: DigestOutcome;
    try {
      outcome = (await this.pool.run(message, { signal: abort.signal, transferList })) as DigestOutcome;
    } catch (e) {
      throw this.failure(e, what, overBudget);
    } finally {
      clearTimeout(budgetTimer);
      clearTimeout(deadlineTimer);
      port1.close();
    }
    return unwrap(outcome);
  }

  /** Resolves once a worker has loaded (the first page's budget should not pay for the start-up). */
  async warmUp(): Promise<void> {
    const message: PageWorkMessage = { task: { kind: 'html', html: '', markdown: false, checkBrowser: false } };
    await this.pool.run(message);
  }

  stats(): { threads: number; queued: number; completed: number } {
    return { threads: this.pool.threads.length, queued: this.pool.queueSize, completed: this.pool.completed };
  }

  async close(): Promise<void> {
    await this.pool.destroy();
  }

  private failure(e: unknown, what: string, overBudget: boolean): TrawlError {
    const err = e as Error & { code?: string };
    if (err?.name === 'AbortError' || /abort/i.test(err?.message ?? '')) {
      return overBudget
        ? new TrawlError(
            'PAGE_TOO_COMPLEX',
            `converting ${what} took longer than the ${this.options.budgetMs} ms budget; the work was stopped`,
            { cause: e },
          )
        : new TrawlError('UPSTREAM_TIMEOUT', `converting ${what} did not finish before the request's deadline`, {
            cause: e,
          });
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

function unwrap(outcome: DigestOutcome): PageDigest {
  if (outcome.ok) return outcome.digest;
  throw TrawlError.fromWire(outcome.error);
}

/** The compiled worker next to this file in a build; from TypeScript sources, the SWC-compiling entry. */
function workerFile(): string {
  const compiled = new URL('./page-work.worker.js', import.meta.url);
  if (existsSync(fileURLToPath(compiled))) return compiled.href;
  return new URL('./page-work.worker.source.mjs', import.meta.url).href;
}
