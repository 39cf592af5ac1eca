import type { Job, Queue } from 'bullmq';
import type { RedisClient } from '@trawl/redis';

/**
 * Large results kept apart from BullMQ's return value (issue 24). BullMQ's `moveToFinished` writes a job's return value
 * twice: into the job's hash (what lookups read) and into the `completed` entry of the queue's event stream, which
 * nothing in Trawl reads and which keeps its last ~10,000 entries. A result of `RESULT_APART_MIN_BYTES` or more is
 * written once, into the job's hash under `RESULT_FIELD` (while the attempt still holds the job's lock), and BullMQ
 * gets a small marker as the return value instead; every read of a job (`TaskQueues.getJob`, the outcome publisher)
 * puts the result back in place of the marker. The hash, and so the result, is kept and removed as before.
 */

/** The job-hash field holding a result kept apart. */
export const RESULT_FIELD = 'trawl:result';

/** Results whose JSON is at least this long (UTF-16 units) are kept apart; smaller ones go through BullMQ. */
export const RESULT_APART_MIN_BYTES = 4096;

/** What BullMQ stores as the return value of a job whose result is kept apart. */
export const RESULT_APART_MARKER: Readonly<{ resultIn: string }> = Object.freeze({ resultIn: RESULT_FIELD });

/** Whether a job's return value is the marker of a result kept apart. */
export function isResultApart(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return false;
  const keys = Object.keys(value);
  return keys.length === 1 && (value as { resultIn?: unknown }).resultIn === RESULT_FIELD;
}

/**
 * Writes the result into the job's hash only while the attempt's token holds the job's lock (the job is still this
 * attempt's, and still exists): a lost attempt must not write into a job another attempt now runs.
 * KEYS[1] the job's hash, KEYS[2] its lock; ARGV[1] the token, ARGV[2] the field, ARGV[3] the result (JSON).
 */
const KEEP_RESULT_SCRIPT = `
if redis.call('GET', KEYS[2]) == ARGV[1] then
  redis.call('HSET', KEYS[1], ARGV[2], ARGV[3])
  return 1
end
return 0`;

/**
 * What BullMQ should store as the return value of `job`'s attempt that produced `result`: the result itself when it is
 * small (or cannot be kept apart: no token, the lock no longer this attempt's), else the marker once the result is in
 * the job's hash.
 */
export async function keepResultApart(
  redis: RedisClient,
  queue: Queue,
  job: Job,
  token: string | undefined,
  result: unknown,
): Promise<unknown> {
  if (token === undefined || result === undefined || result === null) return result;
  const text = JSON.stringify(result);
  if (text === undefined || text.length < RESULT_APART_MIN_BYTES) return result;
  const key = queue.toKey(String(job.id));
  const kept = await redis.eval(KEEP_RESULT_SCRIPT, 2, key, `${key}:lock`, token, RESULT_FIELD, text);
  return kept === 1 ? RESULT_APART_MARKER : result;
}

/** Puts a result kept apart back into `job` (read from its hash); a job without the marker is left as it is. */
export async function restoreResult(redis: RedisClient, queue: Queue, job: Job): Promise<Job> {
  if (!isResultApart(job.returnvalue)) return job;
  const text = await redis.hget(queue.toKey(String(job.id)), RESULT_FIELD);
  job.returnvalue = text === null ? null : JSON.parse(text);
  return job;
}
