import { afterAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, freePort, freePortRange } from '@trawl/testing';
import { serviceBuilt, WORKSPACE_ROOT } from './support/stack.js';

/** The bound on the whole stop: the services' grace (TRAWL_STOP_GRACE_S) plus Redis' and NATS' own, plus slack. */
const STOP_GRACE_S = 15;
const INFRA_GRACE_S = 10;
const STOP_BOUND_MS = (STOP_GRACE_S + INFRA_GRACE_S + 10) * 1000;

/** Pids of every live process whose environment carries `marker` (this user's processes only: /proc/<pid>/environ). */
function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const environ = readFileSync(`/proc/${entry}/environ`, 'latin1').split('\0');
      const stat = readFileSync(`/proc/${entry}/stat`, 'latin1');
      // A zombie (state Z) has exited already; it only waits for its parent to reap it.
      const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      if (state !== 'Z' && environ.includes(marker)) found.push(Number(entry));
    } catch {
      // gone meanwhile, or not ours
    }
  }
  return found;
}

function describeProcesses(pids: number[]): string {
  return pids
    .map((pid) => {
      try {
        return `${pid}: ${readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').join(' ')}`;
      } catch {
        return `${pid}: (gone)`;
      }
    })
    .join('\n');
}

/**
 * Issue 10, "must show" 6: SIGINT to `npm start`'s process group (what a terminal's Ctrl-C sends) stops the whole
 * stack in order, the services first and Redis and NATS last, and leaves no process behind after the grace period.
 * `npm start` runs from the existing build (TRAWL_SKIP_BUILD) on free loopback ports with its own run directory.
 * Issue 19, Medium 7 (ADR 0021): it makes its development key at random and listens on loopback only.
 */
const built = serviceBuilt('gateway') && serviceBuilt('task-service');
const suite = built ? describe : describe.skip;
if (!built) console.warn('start-stop.e2e: dist/ is missing, skipped (run `npm run build` first)');

suite('npm start and Ctrl-C (issue 10, must show 6)', () => {
  const runDir = mkdtempSync(join(tmpdir(), 'trawl-start-stop-'));
  const marker = `TRAWL_RUN_DIR=${runDir}`;
  let npm: ChildProcess | undefined;
  let output = '';

  afterAll(() => {
    // Whatever is left (only on failure): kill it by pid, then remove the run directory.
    for (const pid of processesWith(marker)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    rmSync(runDir, { recursive: true, force: true });
  });

  it('stops the services first, then NATS and Redis, and leaves no process running', async () => {
    const [port, redisPort, cacheRedisPort, natsPort, metricsBase] = await Promise.all([
      freePort(),
      freePort(),
      freePort(),
      freePort(),
      // One ops port per non-gateway service, upwards from here.
      freePortRange(6),
    ]);
    npm = spawn('npm', ['start', '--silent'], {
      cwd: WORKSPACE_ROOT,
      // Its own process group, as a terminal's foreground job has: the SIGINT below goes to the whole group.
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        TRAWL_RUN_DIR: runDir,
        TRAWL_SKIP_BOOTSTRAP: '1',
        TRAWL_SKIP_BUILD: '1',
        TRAWL_STOP_GRACE_S: String(STOP_GRACE_S),
        TRAWL_INFRA_STOP_GRACE_S: String(INFRA_GRACE_S),
        TRAWL_METRICS_PORT_BASE: String(metricsBase),
        REDIS_URL: `redis://127.0.0.1:${redisPort}`,
        // The result cache's own Redis, on a free port too (the script's default, :6380, may be another stack's).
        CACHE_REDIS_URL: `redis://127.0.0.1:${cacheRedisPort}`,
        NATS_URL: `nats://127.0.0.1:${natsPort}`,
        PORT: String(port),
        // No HOST, OPS_HOST or API_KEYS: the defaults are what is tried (loopback, a key made for the run).
        HOST: '',
        OPS_HOST: '',
        API_KEYS: '',
        LOG_LEVEL: 'warn',
        TRAWL_SIMULATOR: '0',
      },
    });
    npm.stdout?.on('data', (d: Buffer) => (output += d.toString()));
    npm.stderr?.on('data', (d: Buffer) => (output += d.toString()));
    const npmExited = new Promise<void>((resolve) => npm?.once('exit', () => resolve()));

    await eventually(async () => (await fetch(`http://127.0.0.1:${port}/health/ready`)).ok, 120_000).catch(
      (e: unknown) => {
        throw new Error(`the stack did not become ready: ${String(e)}\n${output}`);
      },
    );
    const running = processesWith(marker);
    // npm, the script, Redis, NATS and at least the gateway and task-service.
    expect(running.length).toBeGreaterThanOrEqual(6);

    // No well-known key: the key is made for this run, printed, and kept in the run directory for this user only.
    const key = readFileSync(join(runDir, 'api-key'), 'utf8').trim();
    expect(key).toMatch(/^dev-[0-9a-f]{32}$/);
    expect(statSync(join(runDir, 'api-key')).mode & 0o077).toBe(0);
    expect(output).toContain(`API key: ${key}`);
    const lookup = (apiKey: string) =>
      fetch(`http://127.0.0.1:${port}/api/openapi/v1/extractTask/no-such-task`, { headers: { 'x-api-key': apiKey } });
    expect((await lookup('dev-key')).status).toBe(401);
    expect((await lookup(key)).status).toBe(404);
    // The gateway and the services' ops servers listen on loopback only: 127.0.0.2 (this machine, another address)
    // is refused. The first service's ops server is on TRAWL_METRICS_PORT_BASE.
    await eventually(async () => (await fetch(`http://127.0.0.1:${metricsBase}/health/live`)).ok, 120_000).catch(
      (e: unknown) => {
        const log = readFileSync(join(runDir, 'extractor-maps.log'), 'utf8');
        throw new Error(`extractor-maps' ops server did not answer: ${String(e)}\n${log}\n${output}`);
      },
    );
    await expect(fetch(`http://127.0.0.2:${metricsBase}/metrics`)).rejects.toThrow();
    await expect(fetch(`http://127.0.0.2:${port}/health/ready`)).rejects.toThrow();

    const pgid = npm.pid;
    if (pgid === undefined) throw new Error('npm has no pid');
    process.kill(-pgid, 'SIGINT');

    await eventually(() => processesWith(marker).length === 0, STOP_BOUND_MS).catch((e: unknown) => {
      throw new Error(
        `processes still running ${STOP_BOUND_MS} ms after SIGINT: ${String(e)}\n` +
          `${describeProcesses(processesWith(marker))}\n${output}`,
      );
    });
    await npmExited;

    // In order: the script said so, and no service lost Redis or NATS while stopping (the symptom of the old
    // script was task-service retrying Redis forever).
    expect(output).toMatch(/stopping the services .* then NATS and Redis/);
    expect(output).toMatch(/\bstopped\b/);
    expect(output).not.toMatch(/killing/);
    for (const log of ['task-service', 'gateway', 'webhook-dispatcher']) {
      const text = readFileSync(join(runDir, `${log}.log`), 'utf8');
      expect({ log, refused: /ECONNREFUSED/.test(text) }).toEqual({ log, refused: false });
    }
  }, 240_000);
});
