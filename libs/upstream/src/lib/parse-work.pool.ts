import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MessageChannel } from 'node:worker_threads';
import { TrawlError } from '@trawl/contracts';
import { UpstreamWallError, type WallKind } from '@trawl/parsers';
import { Piscina } from 'piscina';
import { handleParseTask } from './parse-task.handler.js';
import type { ParseOutcome, ParseResults, ParseTask } from './parse-task.types.js';
import type { ParseWorkMessage } from './parse-work.worker.js';

export interface ParseWorkPoolOptions {
  /** Worker threads at most (PARSE_THREADS). */
  threads: number;
  /** Time one parse may take once a worker has started it, ms (PARSE_BUDGET_MS); over it the worker is stopped. */
  budgetMs: number;
  /** Pages shorter than this (characters) are parsed on the event loop (PARSE_INLINE_BELOW_CHARS); 0: none. */
  inlineBelowChars?: number;
  /** Heap of one worker, MiB: a page that needs more fails alone. */
  maxHeapMb?: number;
  /** Parses that may wait for a thread; more are OVERLOADED. */
  maxQueue?: number;
}

/**
 * The parse pool of the upstream extractors (search, maps, retail): every parse runs here, off the event loop, in
 * piscina worker threads, each under a time budget (ADR 0020). A parse over its budget, or one that exhausts a
 * worker's heap, stops that worker and fails its own request with PAGE_TOO_COMPLEX; the event loop (NATS, liveness,
 * other requests, SIGTERM) never waits for it. The parser's own errors come back as they were thrown (walls too).
 */
export class ParseWorkPool {
  private started?: Piscina;

  constructor(private readonly options: ParseWorkPoolOptions) {}

  /** The threads, started on first use (a pool that only parses inline starts none). */
  private get pool(): Piscina {
    this.started ??= new Piscina({
      filename: workerFile(),
      minThreads: this.options.threads,
      maxThreads: this.options.threads,
      maxQueue: this.options.maxQueue ?? 256,
      idleTimeout: 60_000,
      resourceLimits: { maxOldGenerationSizeMb: this.options.maxHeapMb ?? 512 },
    });
    return this.started;
  }

  /**
   * Parses one page within the budget and, when given, the request's remaining time (ms). `what` names the page
   * in errors ("the maps place page").
   */
  async parse<K extends ParseTask['parser']>(
    task: ParseTask & { parser: K },
    what: string,
    remainingMs?: number,
  ): Promise<ParseResults[K]> {
    if (task.html.length < (this.options.inlineBelowChars ?? 0)) {
      return unwrap(handleParseTask(task)) as ParseResults[K];
    }
    // The budget runs from the moment a worker starts the parse (waiting for a thread is not charged); the
    // request's remaining time bounds the wait and the work together.
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
    const deadlineTimer =
      remainingMs === undefined ? undefined : setTimeout(() => abort.abort(), Math.max(1, remainingMs));
    const message: ParseWorkMessage = { task, started: port2 };
    let outcome: ParseOutcome;
    try {
      outcome = (await this.pool.run(message, { signal: abort.signal, transferList: [port2] })) as ParseOutcome;
    } catch (e) {
      throw this.failure(e, what, overBudget);
    } finally {
      clearTimeout(budgetTimer);
      clearTimeout(deadlineTimer);
      port1.close();
    }
    return unwrap(outcome) as ParseResults[K];
  }

  /** Resolves once every worker has loaded the parsers (the first page's budget should not pay for the start-up). */
  async warmUp(): Promise<void> {
    const task: ParseTask = { parser: 'search', html: '' };
    await Promise.all(
      Array.from({ length: this.options.threads }, () => this.pool.run({ task } satisfies ParseWorkMessage)),
    );
  }

  stats(): { threads: number; queued: number; completed: number } {
    const pool = this.started;
    return { threads: pool?.threads.length ?? 0, queued: pool?.queueSize ?? 0, completed: pool?.completed ?? 0 };
  }

  /** Stops the workers, a parse in progress included. */
  async close(): Promise<void> {
    const pool = this.started;
    this.started = undefined;
    await pool?.destroy();
  }

  private failure(e: unknown, what: string, overBudget: boolean): TrawlError {
    const err = e as Error & { code?: string };
    if (err?.name === 'AbortError' || /abort/i.test(err?.message ?? '')) {
      return overBudget
        ? new TrawlError(
            'PAGE_TOO_COMPLEX',
            `parsing ${what} took longer than the ${this.options.budgetMs} ms budget; the parse was stopped`,
            { cause: e },
          )
        : new TrawlError('UPSTREAM_TIMEOUT', `parsing ${what} did not finish before the request's deadline`, {
            cause: e,
          });
    }
    if (/queue is at limit/i.test(err?.message ?? '')) {
      return new TrawlError('OVERLOADED', 'the parse queue is full; retry later', { cause: e });
    }
    if (err?.code === 'ERR_WORKER_OUT_OF_MEMORY') {
      return new TrawlError('PAGE_TOO_COMPLEX', `parsing ${what} needed more memory than a worker has`, { cause: e });
    }
    return new TrawlError('PAGE_TOO_COMPLEX', `parsing ${what} failed: ${err?.message?.split('\n')[0] ?? String(e)}`, {
      cause: e,
    });
  }
}

/** The record, or the parser's error as it was thrown (an UpstreamWallError keeps its wall). */
function unwrap(outcome: ParseOutcome): unknown {
  if (outcome.ok) return outcome.value;
  if (outcome.wall) return throwWall(outcome.wall as WallKind, outcome.error.message);
  throw TrawlError.fromWire(outcome.error);
}

function throwWall(wall: WallKind, message: string): never {
  throw new UpstreamWallError(wall, message);
}

/** The compiled worker next to this file in a build; from TypeScript sources, the SWC-compiling entry. */
function workerFile(): string {
  const compiled = new URL('./parse-work.worker.js', import.meta.url);
  if (existsSync(fileURLToPath(compiled))) return compiled.href;
  return new URL('./parse-work.worker.source.mjs', import.meta.url).href;
}
