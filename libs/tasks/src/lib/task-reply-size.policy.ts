import type { TaskJobData } from './task-job-data.types.js';

/**
 * Bytes a job of a batch reply takes beside its data: name, opts, the id (up to 45 characters), priority, timestamp,
 * queue name and the rest of BullMQ's Job.toJSON() fields, with room to spare.
 */
export const REPLY_BYTES_PER_JOB = 400;

/**
 * An over-estimate of the reply listing jobs with these data (a batch submission's job objects): per job, its whole
 * data (the reply echoes part of it) as JSON, plus REPLY_BYTES_PER_JOB.
 */
export function replyBytesOf(data: readonly TaskJobData[]): number {
  let size = 0;
  for (const d of data) size += Buffer.byteLength(JSON.stringify(d)) + REPLY_BYTES_PER_JOB;
  return size;
}

/** Characters JSON writes as they are, one byte each in UTF-8: printable ASCII but `"` and `\`. */
const PLAIN_JSON = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** Bytes of `s` as a JSON string, quotes included. */
export function jsonStringBytes(s: string): number {
  return PLAIN_JSON.test(s) ? s.length + 2 : Buffer.byteLength(JSON.stringify(s));
}

/**
 * `replyBytesOf` of a URL batch's data, whose jobs differ only in `url`, without writing each job's JSON: `template`
 * is their data with `url: ''`, and each job adds its URL's JSON bytes to that. The same number, not an estimate of it.
 */
export function urlBatchReplyBytes(template: TaskJobData & { url: string }, urls: readonly string[]): number {
  const base = Buffer.byteLength(JSON.stringify({ ...template, url: '' })) - 2 + REPLY_BYTES_PER_JOB;
  let size = base * urls.length;
  for (const url of urls) size += jsonStringBytes(url);
  return size;
}
