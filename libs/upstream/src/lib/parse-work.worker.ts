import type { MessagePort } from 'node:worker_threads';
import { handleParseTask } from './parse-task.handler.js';
import type { ParseOutcome, ParseTask } from './parse-task.types.js';

/** A task as the pool sends it: the parse, and a port on which the worker says when it starts (the budget's clock). */
export interface ParseWorkMessage {
  task: ParseTask;
  started?: MessagePort;
}

/** The parse pool's worker: one parse per task (see parse-work.pool.ts). */
export default function parseWork({ task, started }: ParseWorkMessage): ParseOutcome {
  started?.postMessage('started');
  started?.close();
  return handleParseTask(task);
}
