import {
  createRedisBackend,
  type BackendFactory,
  type Job,
  type MinimalJob,
  type Queue,
  type RedisQueueBackend,
} from 'bullmq';
import type { RedisClient } from '@trawl/redis';

/**
 * Large results kept apart from BullMQ's return value (issue 24). BullMQ's `moveToFinished` writes a job's return value
 * twice: into the job's hash (what lookups read) and into the `completed` entry of the queue's event stream, which
 * nothing in Trawl reads and which keeps its last ~10,000 entries. A result of `RESULT_APART_MIN_BYTES` or more is
 * written once, into the job's hash under `RESULT_FIELD`, in the same script that completes the job
 * (`resultKeepingBackend`), and BullMQ stores a small marker as the return value instead; every read of a job
 * (`TaskQueues.getJob`, the outcome publisher) puts the result back in place of the marker. The hash, and so the
 * result, is kept and removed as before.
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

/** What the result-keeping backend needs of BullMQ's Redis backend (some of it protected in its types). */
interface FinishingBackend {
  version: string;
  moveToCompleted: (job: MinimalJob, returnValue: unknown, ...rest: unknown[]) => Promise<unknown>;
  execCommand: (client: unknown, commandName: string, args: unknown[]) => unknown;
}

/** What the script definition needs of the Redis client BullMQ hands its backend (ioredis, standalone or Cluster). */
interface ScriptingClient {
  scriptsSet?: Record<string, { lua: string; numberOfKeys: number | null } | undefined>;
  defineCommand?: (name: string, definition: { numberOfKeys: number; lua: string }) => void;
  runCommand: (name: string, args: unknown[]) => unknown;
}

/** BullMQ's `moveToFinished` takes 14 keys; the 12th is the job's hash, then ARGV[1] is the job's id. */
const FINISH_KEYS = 14;
const JOB_KEY_INDEX = 11;

/**
 * BullMQ's `moveToFinished` with the result's write in the same script: BullMQ's body runs as it is (its lock and
 * state checks, the completion with the marker as return value, the next job's take), and only if it did not refuse
 * (a negative code: the lock is not this attempt's, the job is not active, …) is the result written into the job's
 * hash, if the hash still exists. One script: Redis, its AOF and its replicas apply both or neither.
 * ARGV: BullMQ's own, then the field and the result (JSON).
 */
export function finishKeepingResultLua(moveToFinishedLua: string): string {
  if (moveToFinishedLua.trimStart().startsWith('#!')) throw new Error('a script with a shebang line cannot be wrapped');
  return [
    'local trawlResult = table.remove(ARGV)',
    'local trawlField = table.remove(ARGV)',
    'local function finishOne(KEYS, ARGV)',
    moveToFinishedLua,
    'end',
    'local reply = finishOne(KEYS, ARGV)',
    "if type(reply) ~= 'number' or reply >= 0 then",
    `  if redis.call('EXISTS', KEYS[${JOB_KEY_INDEX + 1}]) == 1 then`,
    `    redis.call('HSET', KEYS[${JOB_KEY_INDEX + 1}], trawlField, trawlResult)`,
    '  end',
    'end',
    'return reply',
    '',
  ].join('\n');
}

/**
 * A BullMQ backend factory (the Worker's fourth argument) whose completions keep large results apart: BullMQ builds
 * the completion as always, with the marker as return value, and it runs as one call of `finishKeepingResultLua`.
 * The job object keeps the whole result in memory (BullMQ sets `returnvalue` before it asks the backend), so the
 * `completed` event carries it. Smaller results, failures and every other call go through BullMQ unchanged.
 */
export const resultKeepingBackend: BackendFactory<RedisQueueBackend> = (name, opts, options) => {
  const backend = createRedisBackend(name, opts, options) as unknown as FinishingBackend;
  const pending = new Map<string, string>();
  const moveToCompleted = backend.moveToCompleted.bind(backend);
  const execCommand = backend.execCommand.bind(backend);
  backend.moveToCompleted = async (job, returnValue, ...rest) => {
    const text = returnValue === undefined || returnValue === null ? undefined : JSON.stringify(returnValue);
    if (text === undefined || text.length < RESULT_APART_MIN_BYTES || job.id === undefined) {
      return moveToCompleted(job, returnValue, ...rest);
    }
    const id = String(job.id);
    pending.set(id, text);
    try {
      return await moveToCompleted(job, RESULT_APART_MARKER, ...rest);
    } finally {
      pending.delete(id);
    }
  };
  backend.execCommand = (client, commandName, args) => {
    const text = commandName === 'moveToFinished' ? pending.get(String(args[FINISH_KEYS])) : undefined;
    const c = client as ScriptingClient;
    const original = c.scriptsSet?.[`moveToFinished:${backend.version}`];
    if (text === undefined || !original || typeof c.defineCommand !== 'function') {
      return execCommand(client, commandName, args);
    }
    const keeping = `trawlKeepResult:moveToFinished:${backend.version}`;
    if (!c.scriptsSet?.[keeping]) {
      c.defineCommand(keeping, { numberOfKeys: FINISH_KEYS, lua: finishKeepingResultLua(original.lua) });
    }
    return c.runCommand(keeping, [...args, RESULT_FIELD, text]);
  };
  return backend as unknown as RedisQueueBackend;
};

/** Puts a result kept apart back into `job` (read from its hash); a job without the marker is left as it is. */
export async function restoreResult(redis: RedisClient, queue: Queue, job: Job): Promise<Job> {
  if (!isResultApart(job.returnvalue)) return job;
  const text = await redis.hget(queue.toKey(String(job.id)), RESULT_FIELD);
  job.returnvalue = text === null ? null : JSON.parse(text);
  return job;
}
