import type { IRedisTransaction } from 'bullmq';

/**
 * Batched job inserts (ADR 0018). BullMQ inserts a job with one Lua script call (`addPrioritizedJob`, ...), so a MULTI
 * of 10,000 jobs is 10,000 commands, and building, framing and parsing them costs more than the inserts themselves.
 * Here BullMQ's own insert of each job is recorded instead of sent (`recordInserts`: the command and the arguments
 * BullMQ built), and consecutive inserts with the same script and keys are sent as one call of a script that runs
 * BullMQ's script body once per job, with that job's arguments (`batchedScriptLua`). Redis runs the same Lua on the
 * same keys and arguments, in the same order, inside the same MULTI: the stored jobs, sets and events are the same.
 */

/** One insert as BullMQ built it: its versioned command (`addPrioritizedJob:<version>`) and its keys, then argv. */
export interface RecordedInsert {
  command: string;
  args: unknown[];
}

/** A Lua script as ioredis holds it once defined (`defineCommand`). */
interface DefinedScript {
  lua: string;
  numberOfKeys: number | null;
}

/** What batching needs of the Redis client (ioredis, standalone or Cluster); without it, inserts go one by one. */
interface ScriptingClient {
  scriptsSet?: Record<string, DefinedScript | undefined>;
  defineCommand?: (name: string, definition: { numberOfKeys: number; lua: string }) => void;
}

/** How the replies of the calls queued by `queueInserts` map to jobs: a count per call, or 1 for a single insert. */
export type InsertCall = { batch: number } | { single: true };

/**
 * A stand-in for a MULTI that records what BullMQ's `addJobToTransaction` would queue on it. BullMQ awaits the
 * command's result: it gets 0 (not an error code), and the real result comes back from the batched call.
 */
export function recordInserts(): { transaction: IRedisTransaction; inserts: RecordedInsert[] } {
  const inserts: RecordedInsert[] = [];
  const transaction = {
    runCommand(command: string, args: unknown[]) {
      inserts.push({ command, args });
      return 0;
    },
  } as unknown as IRedisTransaction;
  return { transaction, inserts };
}

/**
 * A script that runs BullMQ's script `lua` once per job. KEYS are the script's own keys (the same for every job);
 * ARGV[1] is how many arguments one job has, then each job's arguments. BullMQ's body becomes the body of a local
 * function whose parameters are named KEYS and ARGV, so it reads them as it reads its own; its `return` returns that
 * job's result. Replies an array with each job's result in order (nil when the body returns nothing).
 */
export function batchedScriptLua(lua: string): string {
  // A shebang (`#!lua flags=...`) must open a script: such a script cannot be wrapped.
  if (lua.trimStart().startsWith('#!')) throw new Error('a script with a shebang line cannot be batched');
  return [
    'local function insertOne(KEYS, ARGV)',
    lua,
    'end',
    'local perJob = tonumber(ARGV[1])',
    'local replies = {}',
    'local n = 0',
    'for i = 2, #ARGV, perJob do',
    '  local argv = {}',
    '  for j = 1, perJob do argv[j] = ARGV[i + j - 1] end',
    '  local reply = insertOne(KEYS, argv)',
    '  if reply == nil then reply = false end',
    '  n = n + 1',
    '  replies[n] = reply',
    'end',
    'return replies',
    '',
  ].join('\n');
}

const batchedName = (command: string) => `trawlBatch:${command}`;

/**
 * Queues `inserts` on `multi`, in order: runs of consecutive inserts with the same command and keys as batched calls of
 * at most `chunk` jobs each; an insert without a batched script on `client`, alone, as BullMQ sends it. ioredis copies
 * the defined scripts into a MULTI when the MULTI is created: `defineBatchedScripts` must run before `client.multi()`.
 */
export function queueInserts(
  client: unknown,
  multi: IRedisTransaction,
  inserts: RecordedInsert[],
  chunk: number,
): InsertCall[] {
  const scripts = (client as ScriptingClient).scriptsSet;
  const calls: InsertCall[] = [];
  for (let i = 0; i < inserts.length;) {
    const { command, args } = inserts[i];
    const keyCount = scripts?.[command]?.numberOfKeys;
    const name = batchedName(command);
    if (typeof keyCount !== 'number' || !scripts?.[name]) {
      multi.runCommand(command, args);
      calls.push({ single: true });
      i += 1;
      continue;
    }
    const keys = args.slice(0, keyCount);
    const perJob = args.length - keyCount;
    const argv: unknown[] = [perJob];
    let end = i;
    while (end < inserts.length && end - i < chunk && sameCall(inserts[end], command, keys, perJob)) {
      const jobArgs = inserts[end].args;
      for (let k = keyCount; k < jobArgs.length; k++) argv.push(jobArgs[k]);
      end += 1;
    }
    multi.runCommand(name, [...keys, ...argv]);
    calls.push({ batch: end - i });
    i = end;
  }
  return calls;
}

/** Defines on `client` the batched script of each command of `inserts` it holds and has not batched yet. */
export function defineBatchedScripts(client: unknown, inserts: RecordedInsert[]): void {
  const c = client as ScriptingClient;
  if (!c.scriptsSet || typeof c.defineCommand !== 'function') return;
  for (const command of new Set(inserts.map((x) => x.command))) {
    const script = c.scriptsSet[command];
    const name = batchedName(command);
    if (!script || typeof script.numberOfKeys !== 'number' || c.scriptsSet[name]) continue;
    c.defineCommand(name, { numberOfKeys: script.numberOfKeys, lua: batchedScriptLua(script.lua) });
  }
}

function sameCall(insert: RecordedInsert, command: string, keys: unknown[], perJob: number): boolean {
  if (insert.command !== command || insert.args.length !== keys.length + perJob) return false;
  for (let k = 0; k < keys.length; k++) if (insert.args[k] !== keys[k]) return false;
  return true;
}

/**
 * Each job's reply from the replies of the calls `queueInserts` queued (the first `calls.length` replies of the
 * MULTI): `[error, reply]` per job. A batched call that failed fails each of its jobs.
 */
export function jobReplies(calls: InsertCall[], replies: [Error | null, unknown][]): [Error | null, unknown][] {
  const out: [Error | null, unknown][] = [];
  for (const [i, call] of calls.entries()) {
    const [err, reply] = replies[i] ?? [new Error('no reply'), null];
    if ('single' in call) {
      out.push([err, reply]);
      continue;
    }
    if (!err && (!Array.isArray(reply) || reply.length !== call.batch)) {
      const error = new Error(`a batched insert of ${call.batch} jobs replied ${JSON.stringify(reply)?.slice(0, 200)}`);
      for (let k = 0; k < call.batch; k++) out.push([error, null]);
      continue;
    }
    for (let k = 0; k < call.batch; k++) out.push(err ? [err, null] : [null, (reply as unknown[])[k]]);
  }
  return out;
}
