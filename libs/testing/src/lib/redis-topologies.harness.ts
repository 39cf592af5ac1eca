import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { freePort } from './free-port.util.js';
import { eventually, startProcess, waitForPort, type RunningProcess } from './processes.util.js';
import { findBinary } from './servers.harness.js';

const run = promisify(execFile);

/** One redis-server (data node or Sentinel) of a topology, on its own loopback port and temp dir. */
export interface RedisTopologyNode {
  readonly host: '127.0.0.1';
  readonly port: number;
  /** `127.0.0.1:<port>`. */
  readonly address: string;
  /** True until `kill()` or the topology's `stop()`. */
  alive(): boolean;
  /** SIGKILLs the node for good (no shutdown, no save): a lost machine. */
  kill(): Promise<void>;
}

interface NodeHandle extends RedisTopologyNode {
  proc: RunningProcess;
  dir: string;
}

/** Starts `redis-server args…` on `port` in `dir` and waits until it listens. */
async function startNode(port: number, dir: string, args: string[], sentinel = false): Promise<NodeHandle> {
  const bin = findBinary('redis-server', ['/usr/bin/redis-server', '/usr/local/bin/redis-server']);
  const proc = startProcess(bin, sentinel ? [...args, '--sentinel'] : args);
  await waitForPort(port, '127.0.0.1', 20_000, proc);
  let dead = false;
  return {
    host: '127.0.0.1',
    port,
    address: `127.0.0.1:${port}`,
    proc,
    dir,
    alive: () => !dead,
    async kill() {
      dead = true;
      await proc.stop('SIGKILL');
    },
  };
}

/** Data-node arguments as production Redis for BullMQ must run (AOF, noeviction), announcing loopback. */
function dataNodeArgs(port: number, dir: string): string[] {
  return [
    ...['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'yes'],
    ...['--maxmemory-policy', 'noeviction', '--dir', dir, '--replica-announce-ip', '127.0.0.1'],
  ];
}

async function stopAll(nodes: NodeHandle[]): Promise<void> {
  await Promise.all(nodes.map((n) => n.proc.stop('SIGKILL')));
  for (const n of nodes) rmSync(n.dir, { recursive: true, force: true });
}

/** Asks one node a question and disconnects (a short-lived plain client: harness only). */
async function ask<T>(port: number, question: (r: Redis) => Promise<T>): Promise<T> {
  const r = new Redis({
    host: '127.0.0.1',
    port,
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  r.on('error', () => undefined);
  try {
    await r.connect();
    return await question(r);
  } finally {
    r.disconnect();
  }
}

/** A master with replicas watched by Sentinels, all on loopback. */
export interface RedisSentinelGroup {
  /** The master group name the Sentinels monitor (`mymaster`). */
  readonly name: string;
  /** The data nodes: the first one is the master at start. */
  readonly dataNodes: readonly RedisTopologyNode[];
  readonly sentinels: readonly RedisTopologyNode[];
  /** The Redis variables a service needs: `REDIS_SENTINELS` and `REDIS_SENTINEL_NAME`. */
  readonly env: { REDIS_SENTINELS: string; REDIS_SENTINEL_NAME: string };
  /** The data node a live Sentinel names as master now. */
  master(): Promise<RedisTopologyNode>;
  /** SIGKILLs the current master for good and resolves once a live Sentinel names another data node master. */
  killMaster(): Promise<{ old: RedisTopologyNode; promoted: RedisTopologyNode }>;
  stop(): Promise<void>;
}

/**
 * Starts a master, `replicas` replicas of it and `sentinels` Sentinels (quorum: a majority), each its own
 * redis-server on a free loopback port with its own temp dir. Sentinels decide a master is down after
 * `downAfterMs` (default 1000 ms) and announce loopback addresses only.
 */
export async function startRedisSentinelGroup(
  options: { replicas?: number; sentinels?: number; downAfterMs?: number; name?: string } = {},
): Promise<RedisSentinelGroup> {
  const name = options.name ?? 'mymaster';
  const replicaCount = options.replicas ?? 2;
  const sentinelCount = options.sentinels ?? 3;
  const started: NodeHandle[] = [];
  try {
    const masterPort = await freePort();
    const masterDir = mkdtempSync(join(tmpdir(), 'trawl-redis-master-'));
    started.push(await startNode(masterPort, masterDir, dataNodeArgs(masterPort, masterDir)));
    for (let i = 0; i < replicaCount; i++) {
      const port = await freePort();
      const dir = mkdtempSync(join(tmpdir(), 'trawl-redis-replica-'));
      const args = [...dataNodeArgs(port, dir), '--replicaof', '127.0.0.1', String(masterPort)];
      started.push(await startNode(port, dir, args));
    }
    const dataNodes = [...started];
    // Replicas in sync before the Sentinels look, so a failover has someone to promote.
    await eventually(
      async () => {
        const info = await ask(masterPort, (r) => r.info('replication'));
        return Number(/connected_slaves:(\d+)/.exec(info)?.[1] ?? 0) === replicaCount;
      },
      20_000,
      100,
    );
    const sentinels: NodeHandle[] = [];
    const quorum = Math.floor(sentinelCount / 2) + 1;
    for (let i = 0; i < sentinelCount; i++) {
      const port = await freePort();
      const dir = mkdtempSync(join(tmpdir(), 'trawl-redis-sentinel-'));
      const conf = join(dir, 'sentinel.conf');
      writeFileSync(
        conf,
        [
          `port ${port}`,
          'bind 127.0.0.1',
          `dir ${dir}`,
          'sentinel announce-ip 127.0.0.1',
          `sentinel monitor ${name} 127.0.0.1 ${masterPort} ${quorum}`,
          `sentinel down-after-milliseconds ${name} ${options.downAfterMs ?? 1000}`,
          `sentinel failover-timeout ${name} 10000`,
          `sentinel parallel-syncs ${name} 1`,
          '',
        ].join('\n'),
      );
      const node = await startNode(port, dir, [conf], true);
      started.push(node);
      sentinels.push(node);
    }
    // Every Sentinel has found the replicas and the other Sentinels.
    await eventually(
      async () => {
        for (const s of sentinels) {
          const m = (await ask(s.port, (r) => r.call('SENTINEL', 'MASTER', name))) as string[];
          const field = (k: string) => Number(m[m.indexOf(k) + 1]);
          if (field('num-slaves') < replicaCount || field('num-other-sentinels') < sentinelCount - 1) return false;
        }
        return true;
      },
      30_000,
      200,
    );

    const masterAddress = async (): Promise<string | undefined> => {
      for (const s of sentinels) {
        if (!s.alive()) continue;
        try {
          const a = (await ask(s.port, (r) => r.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', name))) as string[];
          if (a) return `${a[0]}:${a[1]}`;
        } catch {
          // try the next Sentinel
        }
      }
      return undefined;
    };
    const master = async () => {
      const address = await masterAddress();
      const node = dataNodes.find((n) => n.address === address);
      if (!node) throw new Error(`no live Sentinel names a known master (got ${address ?? 'nothing'})`);
      return node;
    };
    return {
      name,
      dataNodes,
      sentinels,
      env: { REDIS_SENTINELS: sentinels.map((s) => s.address).join(','), REDIS_SENTINEL_NAME: name },
      master,
      async killMaster() {
        const old = await master();
        await old.kill();
        const promoted = await eventually(
          async () => {
            const now = await master().catch(() => undefined);
            if (!now || now === old || !now.alive()) return undefined;
            const role = await ask(now.port, (r) => r.call('ROLE')).catch(() => undefined);
            return Array.isArray(role) && role[0] === 'master' ? now : undefined;
          },
          60_000,
          100,
        );
        return { old, promoted };
      },
      stop: () => stopAll(started),
    };
  } catch (e) {
    await stopAll(started);
    throw e;
  }
}

/** A Redis Cluster of masters (and optional replicas), all on loopback. */
export interface RedisClusterGroup {
  readonly nodes: readonly RedisTopologyNode[];
  /** The Redis variable a service needs: `REDIS_CLUSTER_NODES` (every node). */
  readonly env: { REDIS_CLUSTER_NODES: string };
  /** The hash slot of `key` (`CLUSTER KEYSLOT`). */
  keySlot(key: string): Promise<number>;
  /** The master node that serves `key`'s slot now. */
  masterOfKey(key: string): Promise<RedisTopologyNode>;
  /** Keys matching `pattern` held by each master (`SCAN` on every master), by node address. */
  keysByNode(pattern: string): Promise<Map<string, string[]>>;
  stop(): Promise<void>;
}

/** Whether a TCP port on 127.0.0.1 can be bound now. */
function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/** A free port whose cluster bus port (port + 10000) is free too. */
async function freeClusterPort(): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const port = await freePort();
    if (port + 10_000 <= 65_535 && (await portFree(port + 10_000))) return port;
  }
  throw new Error('no free port with a free cluster bus port (port + 10000)');
}

/**
 * Starts a Redis Cluster: `masters` masters (at least 3, as `redis-cli --cluster create` wants) and `replicasPerMaster`
 * replicas each, every node its own redis-server on a free loopback port (its bus on port + 10000) with its own temp
 * dir, joined with `redis-cli --cluster create … --cluster-yes`; resolves once every node says `cluster_state:ok`.
 */
export async function startRedisCluster(
  options: { masters?: number; replicasPerMaster?: number } = {},
): Promise<RedisClusterGroup> {
  const masters = options.masters ?? 3;
  const replicas = options.replicasPerMaster ?? 0;
  const started: NodeHandle[] = [];
  try {
    for (let i = 0; i < masters * (1 + replicas); i++) {
      const port = await freeClusterPort();
      const dir = mkdtempSync(join(tmpdir(), 'trawl-redis-cluster-'));
      const args = [
        ...dataNodeArgs(port, dir),
        ...['--cluster-enabled', 'yes', '--cluster-config-file', join(dir, 'nodes.conf')],
        ...['--cluster-node-timeout', '2000', '--cluster-announce-ip', '127.0.0.1'],
      ];
      started.push(await startNode(port, dir, args));
    }
    const cli = findBinary('redis-cli', ['/usr/bin/redis-cli', '/usr/local/bin/redis-cli']);
    await run(cli, [
      ...['--cluster', 'create', ...started.map((n) => n.address)],
      ...['--cluster-replicas', String(replicas), '--cluster-yes'],
    ]);
    await eventually(
      async () => {
        for (const n of started) {
          const info = await ask(n.port, (r) => r.call('CLUSTER', 'INFO') as Promise<string>);
          if (!info.includes('cluster_state:ok')) return false;
        }
        return true;
      },
      30_000,
      100,
    );
    const keySlot = (key: string) => ask(started[0].port, (r) => r.call('CLUSTER', 'KEYSLOT', key) as Promise<number>);
    const masterOfSlot = async (slot: number) => {
      const live = started.find((n) => n.alive());
      if (!live) throw new Error('every cluster node is dead');
      const slots = (await ask(live.port, (r) => r.call('CLUSTER', 'SLOTS'))) as [number, number, [string, number]][];
      const range = slots.find(([from, to]) => slot >= from && slot <= to);
      const node = range && started.find((n) => n.port === Number(range[2][1]));
      if (!node) throw new Error(`no master serves slot ${slot}`);
      return node;
    };
    return {
      nodes: started,
      env: { REDIS_CLUSTER_NODES: started.map((n) => n.address).join(',') },
      keySlot,
      masterOfKey: async (key) => masterOfSlot(await keySlot(key)),
      async keysByNode(pattern) {
        const out = new Map<string, string[]>();
        for (const n of started.filter((s) => s.alive())) {
          const role = (await ask(n.port, (r) => r.call('ROLE'))) as [string];
          if (role[0] !== 'master') continue;
          const keys: string[] = [];
          await ask(n.port, async (r) => {
            let cursor = '0';
            do {
              const [next, batch] = await r.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
              keys.push(...batch);
              cursor = next;
            } while (cursor !== '0');
          });
          out.set(n.address, keys);
        }
        return out;
      },
      stop: () => stopAll(started),
    };
  } catch (e) {
    await stopAll(started);
    throw e;
  }
}
