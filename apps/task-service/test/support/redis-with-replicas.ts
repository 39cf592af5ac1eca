import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { eventually, freePort, startProcess, waitForPort, type RunningProcess } from '@trawl/testing';

/** A replica the test can make unreachable (SIGSTOP: its link stays open but it reads and acknowledges nothing). */
export interface PausableReplica {
  port: number;
  pause(): void;
  resume(): void;
}

/** A Redis master with replicas on loopback, each a redis-server process of this test. */
export interface RedisWithReplicas {
  url: string;
  replicas: PausableReplica[];
  stop(): Promise<void>;
}

async function node(args: string[], port: number): Promise<{ proc: RunningProcess; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'trawl-redis-repl-'));
  const proc = startProcess('redis-server', [
    ...['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    ...['--maxmemory-policy', 'noeviction', '--replica-announce-ip', '127.0.0.1', ...args],
  ]);
  await waitForPort(port, '127.0.0.1', 20_000, proc);
  return { proc, dir };
}

/** Starts a master and `count` replicas of it, and waits until every replica is linked. */
export async function startRedisWithReplicas(count: number): Promise<RedisWithReplicas> {
  const masterPort = await freePort();
  const master = await node([], masterPort);
  const replicas: { port: number; proc: RunningProcess; dir: string }[] = [];
  for (let i = 0; i < count; i += 1) {
    const port = await freePort();
    replicas.push({ port, ...(await node(['--replicaof', '127.0.0.1', String(masterPort)], port)) });
  }
  const admin = new Redis(masterPort, '127.0.0.1');
  try {
    await eventually(async () => {
      const info = await admin.info('replication');
      return (info.match(/^slave\d+:.*state=online/gm) ?? []).length === count;
    }, 20_000);
  } finally {
    admin.disconnect();
  }
  const all = [master, ...replicas];
  return {
    url: `redis://127.0.0.1:${masterPort}`,
    replicas: replicas.map((r) => ({
      port: r.port,
      pause: () => r.proc.child.kill('SIGSTOP'),
      resume: () => r.proc.child.kill('SIGCONT'),
    })),
    async stop() {
      for (const r of replicas) r.proc.child.kill('SIGCONT');
      await Promise.all(all.map((n) => n.proc.stop('SIGKILL')));
      for (const n of all) rmSync(n.dir, { recursive: true, force: true });
    },
  };
}
