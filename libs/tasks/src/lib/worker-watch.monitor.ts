import type { Worker } from 'bullmq';
import type { RedisClient } from '@trawl/redis';

/**
 * A queue's worker in this replica as readiness shows it: `taking-jobs`, or `rebuilding` (it was found not to take
 * jobs, for `reason`, and a new one replaces it).
 */
export type WorkerHealth = { state: 'taking-jobs' } | { state: 'rebuilding'; reason: string; since: number };

/** The parts of an ioredis client the watch reads (a BullMQ connection exposes the same). */
interface LinkView {
  status?: string;
  isCluster?: boolean;
  stream?: { remoteAddress?: string; remotePort?: number };
}

/** Resolves `promise`, or `undefined` after `ms` (a connection that is still being set up). */
async function within<T>(promise: Promise<T> | undefined, ms: number): Promise<T | undefined> {
  if (!promise) return undefined;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)));
  try {
    return await Promise.race([promise.catch(() => undefined), late]);
  } finally {
    clearTimeout(timer);
  }
}

function endpoint(link: LinkView): string | undefined {
  const s = link.stream;
  return s?.remoteAddress && s.remotePort ? `${s.remoteAddress}:${s.remotePort}` : undefined;
}

/**
 * Why `worker` does not take jobs now, or undefined when it does as far as can be seen. `reference` is the queues'
 * own command connection, which follows the master (Sentinel's failover detector, `READONLY` reconnects): a worker
 * whose connections are down while it is up, or that sits on another server than it, is bound to a lost or demoted
 * master. Checked:
 * - its main loop ended (`isRunning()` false) though it was neither paused nor closed;
 * - its main or blocking connection ended for good (`end`), or is not `ready` while the reference is;
 * - (standalone and Sentinel) its main or blocking connection is on another server than the reference.
 * One look can catch a connection mid-failover: the caller acts only on a problem that persists.
 */
export async function workerLinkProblem(worker: Worker, reference: RedisClient): Promise<string | undefined> {
  if (worker.closing) return undefined;
  if (!worker.isRunning() && !worker.isPaused()) return 'its main loop has stopped';
  const ref = reference as unknown as LinkView;
  const refReady = ref.status === 'ready';
  const links: [string, LinkView | undefined][] = [
    ['main', (await within(worker.backend.client, 1000)) as unknown as LinkView | undefined],
    ['blocking', (await within(worker.backend.blockingClient, 1000)) as unknown as LinkView | undefined],
  ];
  for (const [kind, link] of links) {
    if (!link) {
      if (refReady) return `its ${kind} connection is not set up while Redis answers`;
      continue;
    }
    if (link.status === 'end') return `its ${kind} connection has ended`;
    if (link.status !== 'ready') {
      if (refReady) return `its ${kind} connection is ${link.status} while Redis answers`;
      continue;
    }
    if (!refReady || ref.isCluster || link.isCluster) continue;
    const at = endpoint(link);
    const master = endpoint(ref);
    if (at && master && at !== master) return `its ${kind} connection is on ${at}, not on the master (${master})`;
  }
  return undefined;
}

/** Errors that mean Redis went away or changed master (connection lost, refused, demoted node). */
export function isRedisOutageError(error: unknown): boolean {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | undefined)?.code;
  return (
    /^(READONLY|UNBLOCKED|LOADING|MASTERDOWN|CLUSTERDOWN)|Connection is closed|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|MaxRetriesPerRequest/i.test(
      message,
    ) ||
    code === 'ECONNREFUSED' ||
    code === 'ECONNRESET'
  );
}

/** Takes back one stall of a job (its `stc`, never below 0) that an outage caused. KEYS[1]: the job's hash. */
export const FORGIVE_STALL_SCRIPT = `
local stc = tonumber(redis.call('HGET', KEYS[1], 'stc') or '0')
if stc <= 0 then return 0 end
redis.call('HSET', KEYS[1], 'stc', stc - 1)
return 1
`;
