import type { MessagePort } from 'node:worker_threads';
import { digestPage, type DigestOutcome, type DigestTask } from './page-digest.extractor.js';

/** A task as the pool sends it: the work, and a port on which the worker says when it starts (the budget's clock). */
export interface PageWorkMessage {
  task: DigestTask;
  started?: MessagePort;
}

/** The page-work pool's worker: one digest per task (see page-work.pool.ts). */
export default async function pageWork({ task, started }: PageWorkMessage): Promise<DigestOutcome> {
  started?.postMessage('started');
  started?.close();
  return digestPage(task);
}
