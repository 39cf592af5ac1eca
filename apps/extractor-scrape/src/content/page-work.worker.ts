import { workerData, type MessagePort } from 'node:worker_threads';
import { AdHider } from './ad-hider.extractor.js';
import { digestPage, type DigestOutcome, type DigestTask } from './page-digest.extractor.js';

/** What the pool hands each worker when it starts. */
export interface PageWorkData {
  /** The ad blocker's engine, serialized (`AdBlocker.serialize()`): element hiding for tasks with `hideAds`. */
  adFilters?: Uint8Array;
}

// The ad blocker's engine, deserialized once per thread (a few ms, at the thread's start).
const adFilters = (workerData as PageWorkData | null)?.adFilters;
const tools = adFilters ? { adHider: new AdHider(adFilters) } : {};

/** A task as the pool sends it: the work, and a port on which the worker says when it starts (the budget's clock). */
export interface PageWorkMessage {
  task: DigestTask;
  started?: MessagePort;
}

/** The page-work pool's worker: one digest per task (see page-work.pool.ts). */
export default async function pageWork({ task, started }: PageWorkMessage): Promise<DigestOutcome> {
  started?.postMessage('started');
  started?.close();
  return digestPage(task, tools);
}
