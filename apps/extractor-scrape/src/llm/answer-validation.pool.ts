import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { TrawlError } from '@trawl/contracts';
import type { ValidationMessage, Verdict } from './answer-validation.worker.js';

/** Longest time one answer's validation may take in the worker, ms; past it the worker is stopped. */
export const DEFAULT_VALIDATION_BUDGET_MS = 2000;

/** Longest wait for a new worker to load Ajv, ms (a start-up, not a validation: outside the budget). */
const START_TIMEOUT_MS = 30_000;

/**
 * Validates model answers against callers' JSON Schemas in one worker thread, one at a time, each within a budget
 * (ADR 0029): a validation over it stops the worker (a new one starts for the next) and is LLM_ANSWER_INVALID. The
 * worker starts on first use.
 */
export class AnswerValidationPool {
  private worker?: { thread: Worker; ready: Promise<void> };
  private nextId = 0;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly budgetMs = DEFAULT_VALIDATION_BUDGET_MS) {}

  /** The verdict on `value`: valid, or the first failures (JSON pointer and message). */
  validate(schema: Record<string, unknown>, value: unknown): Promise<Verdict> {
    const run = this.queue.then(() => this.run(schema, value));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async run(schema: Record<string, unknown>, value: unknown): Promise<Verdict> {
    const started = (this.worker ??= this.start());
    await started.ready;
    const worker = started.thread;
    const id = ++this.nextId;
    return new Promise<Verdict>((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('error', onError);
      };
      const onMessage = (verdict: Verdict) => {
        if (verdict.id !== id) return;
        done();
        resolve(verdict);
      };
      const onError = (e: Error) => {
        done();
        this.stop(started);
        reject(new TrawlError('INTERNAL', 'the answer validation worker failed', { cause: e }));
      };
      const timer = setTimeout(() => {
        done();
        this.stop(started);
        reject(
          new TrawlError(
            'LLM_ANSWER_INVALID',
            `checking the model’s answer against the json schema took longer than ${this.budgetMs} ms ` +
              '(a costly pattern?); stopped',
          ),
        );
      }, this.budgetMs);
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.postMessage({ id, schema, value } satisfies ValidationMessage);
    });
  }

  private start(): { thread: Worker; ready: Promise<void> } {
    const thread = new Worker(new URL(workerFile()), { resourceLimits: { maxOldGenerationSizeMb: 128 } });
    thread.unref();
    const ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => fail(new Error('did not start')), START_TIMEOUT_MS);
      const fail = (e: Error) => {
        clearTimeout(timer);
        thread.off('message', onReady);
        reject(new TrawlError('INTERNAL', 'the answer validation worker did not start', { cause: e }));
      };
      const onReady = (m: { ready?: boolean }) => {
        if (!m.ready) return;
        clearTimeout(timer);
        thread.off('message', onReady);
        thread.off('error', fail);
        resolve();
      };
      thread.on('message', onReady);
      thread.once('error', fail);
    });
    const started = { thread, ready };
    ready.catch(() => this.stop(started));
    thread.on('exit', () => {
      if (this.worker === started) this.worker = undefined;
    });
    return started;
  }

  private stop(started: { thread: Worker }): void {
    if (this.worker === started) this.worker = undefined;
    void started.thread.terminate();
  }

  async close(): Promise<void> {
    const started = this.worker;
    this.worker = undefined;
    await started?.thread.terminate();
  }
}

/** The compiled worker next to this file in a build; from TypeScript sources, the SWC-compiling entry. */
function workerFile(): string {
  const compiled = new URL('./answer-validation.worker.js', import.meta.url);
  if (existsSync(fileURLToPath(compiled))) return compiled.href;
  return new URL('./answer-validation.worker.source.mjs', import.meta.url).href;
}
