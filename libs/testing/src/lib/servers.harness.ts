import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.util.js';
import { startProcess, waitForPort } from './processes.util.js';

/** A real server started for a test on a free loopback port. */
export interface TestServer {
  url: string;
  port: number;
  stop(): Promise<void>;
}

/** The path of an installed program (the first existing candidate, else `command -v`); throws naming it. */
export function findBinary(name: string, candidates: string[]): string {
  for (const c of candidates) if (existsSync(c)) return c;
  try {
    return execFileSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error(`${name} is not installed: run \`npm test\` (it installs it) or apt-get install ${name}`);
  }
}

/** A test server that can be stopped and started again on the same port with the same data directory. */
export interface RestartableTestServer extends TestServer {
  /**
   * Stops the server (SIGTERM), runs `whileDown` (if given) while nothing listens on its port, then starts it again
   * on the same port with the same data directory, and waits until it accepts connections.
   */
  restart(whileDown?: () => Promise<void>): Promise<void>;
}

/**
 * Starts a real redis-server on a free port. By default it persists as production Redis for BullMQ must (AOF,
 * `appendonly yes`, and `maxmemory-policy noeviction`) to a temp data directory, so `restart()` keeps the queues;
 * `persist: false` keeps everything in memory only.
 */
export async function startRedis(options: { persist?: boolean } = {}): Promise<RestartableTestServer> {
  const bin = findBinary('redis-server', ['/usr/bin/redis-server', '/usr/local/bin/redis-server']);
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'trawl-redis-'));
  const persistence = options.persist === false ? ['--appendonly', 'no'] : ['--appendonly', 'yes'];
  const args = [
    ...['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...persistence],
    ...['--maxmemory-policy', 'noeviction', '--dir', dir],
  ];
  let proc = startProcess(bin, args);
  await waitForPort(port, '127.0.0.1', 20_000, proc);
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    async restart(whileDown) {
      await proc.stop();
      await whileDown?.();
      proc = startProcess(bin, args);
      await waitForPort(port, '127.0.0.1', 20_000, proc);
    },
    async stop() {
      await proc.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Starts a real nats-server with JetStream (file store in a temp dir) on a free port, with Trawl's `max_payload`
 * (8 MB, as deploy/nats/nats.conf: a 10,000-URL batch reply is about 4.7 MB) unless `maxPayload` says otherwise.
 */
export async function startNats(options: { maxPayload?: string } = {}): Promise<RestartableTestServer> {
  const bin = findBinary('nats-server', [
    '/usr/bin/nats-server',
    '/usr/sbin/nats-server',
    '/usr/local/bin/nats-server',
  ]);
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'trawl-nats-'));
  const conf = join(dir, 'nats.conf');
  writeFileSync(conf, `max_payload: ${options.maxPayload ?? '8MB'}\n`);
  const args = ['-c', conf, '-a', '127.0.0.1', '-p', String(port), '-js', '-sd', join(dir, 'jetstream')];
  let proc = startProcess(bin, args);
  await waitForPort(port, '127.0.0.1', 20_000, proc);
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    async restart(whileDown) {
      await proc.stop();
      await whileDown?.();
      proc = startProcess(bin, args);
      await waitForPort(port, '127.0.0.1', 20_000, proc);
    },
    async stop() {
      await proc.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
