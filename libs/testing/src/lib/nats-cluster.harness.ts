import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstreamManager, StorageType } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { freePort } from './free-port.util.js';
import { eventually, startProcess, waitForPort, type RunningProcess } from './processes.util.js';
import { findBinary } from './servers.harness.js';

/** The stream `startNatsCluster` places (and deletes) on every node to know the cluster is ready. */
const HARNESS_PROBE_STREAM = 'TRAWL_HARNESS_PROBE';

/** One nats-server of a test cluster. */
export interface NatsClusterNode {
  /** `n1`, `n2`, … (the server_name; what a stream's `cluster.leader` names). */
  name: string;
  url: string;
  port: number;
  /** False once the node was killed. */
  alive: boolean;
}

/** A JetStream cluster of real nats-server processes on loopback. */
export interface TestNatsCluster {
  nodes: NatsClusterNode[];
  /** Every node's URL, comma-separated, as `NATS_URL` takes them. */
  url: string;
  /** The URLs of the nodes still alive. */
  urls(): string[];
  /** The node that leads a stream's Raft group now (waits until one is elected). */
  streamLeader(stream: string, timeoutMs?: number): Promise<NatsClusterNode>;
  /** SIGKILLs a node; it does not come back. */
  kill(name: string): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts `nodes` nats-servers (JetStream on, one store dir each) joined by one `cluster {}` block on loopback, and
 * waits until a stream replicated on every node can be placed, so streams can be created at once. `maxPayload` as `startNats()`.
 */
export async function startNatsCluster(
  options: { nodes?: number; maxPayload?: string; clusterName?: string } = {},
): Promise<TestNatsCluster> {
  const count = options.nodes ?? 3;
  const bin = findBinary('nats-server', [
    '/usr/bin/nats-server',
    '/usr/sbin/nats-server',
    '/usr/local/bin/nats-server',
  ]);
  const dir = mkdtempSync(join(tmpdir(), 'trawl-nats-cluster-'));
  const clientPorts: number[] = [];
  const routePorts: number[] = [];
  for (let i = 0; i < count; i++) {
    clientPorts.push(await freePort());
    routePorts.push(await freePort());
  }
  const routes = routePorts.map((p) => `nats-route://127.0.0.1:${p}`);
  const nodes: NatsClusterNode[] = [];
  const procs = new Map<string, RunningProcess>();
  try {
    for (let i = 0; i < count; i++) {
      const name = `n${i + 1}`;
      const nodeDir = join(dir, name);
      mkdirSync(nodeDir);
      const conf = join(nodeDir, 'nats.conf');
      writeFileSync(
        conf,
        [
          `server_name: ${name}`,
          `listen: 127.0.0.1:${clientPorts[i]}`,
          `max_payload: ${options.maxPayload ?? '8MB'}`,
          `jetstream { store_dir: "${join(nodeDir, 'jetstream')}" }`,
          'cluster {',
          `  name: ${options.clusterName ?? 'trawl-test'}`,
          `  listen: 127.0.0.1:${routePorts[i]}`,
          `  routes: [${routes.filter((_, k) => k !== i).join(', ')}]`,
          '  no_advertise: false',
          '}',
          '',
        ].join('\n'),
      );
      procs.set(name, startProcess(bin, ['-c', conf]));
      nodes.push({ name, url: `nats://127.0.0.1:${clientPorts[i]}`, port: clientPorts[i], alive: true });
    }
    for (const node of nodes) await waitForPort(node.port, '127.0.0.1', 20_000, procs.get(node.name));
  } catch (e) {
    for (const p of procs.values()) await p.stop('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  const alive = () => nodes.filter((n) => n.alive);
  const withManager = async <T>(fn: (jsm: Awaited<ReturnType<typeof jetstreamManager>>) => Promise<T>): Promise<T> => {
    const nc = await connect({ servers: alive().map((n) => n.url), name: 'nats-cluster-harness' });
    try {
      return await fn(await jetstreamManager(nc, { timeout: 2000 }));
    } finally {
      await nc.close();
    }
  };
  const cluster: TestNatsCluster = {
    nodes,
    url: nodes.map((n) => n.url).join(','),
    urls: () => alive().map((n) => n.url),
    async streamLeader(stream, timeoutMs = 30_000) {
      return eventually(
        () =>
          withManager(async (jsm) => {
            const leader = (await jsm.streams.info(stream)).cluster?.leader;
            return alive().find((n) => n.name === leader);
          }),
        timeoutMs,
        200,
      );
    },
    async kill(name) {
      const node = nodes.find((n) => n.name === name);
      if (!node) throw new Error(`no node ${name} in the cluster (${nodes.map((n) => n.name).join(', ')})`);
      node.alive = false;
      await procs.get(name)?.stop('SIGKILL');
    },
    async stop() {
      for (const node of nodes) node.alive = false;
      await Promise.all([...procs.values()].map((p) => p.stop()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    // Ready when a stream replicated on every node can be placed: JetStream answering (a meta leader) is not enough,
    // since a leader is elected by a quorum, and until every node has reported to it an R3 stream is refused with
    // "no suitable peers for placement" (seen on a loaded machine, the test's first stream failing). A throwaway
    // stream of that many replicas is created and deleted until that works.
    const replicas = Math.min(count, 5);
    await eventually(
      () =>
        withManager(async (jsm) => {
          try {
            await jsm.streams.add({
              name: HARNESS_PROBE_STREAM,
              subjects: [`${HARNESS_PROBE_STREAM}.probe`],
              num_replicas: replicas,
              storage: StorageType.Memory,
            });
          } catch {
            return false;
          }
          await jsm.streams.delete(HARNESS_PROBE_STREAM);
          return true;
        }),
      30_000,
      200,
    );
  } catch (e) {
    const logs = [...procs.entries()].map(([n, p]) => `--- ${n}\n${p.output().slice(-2000)}`).join('\n');
    await cluster.stop();
    throw new Error(
      `the NATS cluster could not place a stream on every node (no JetStream meta leader, or a node missing): ${String(e)}\n${logs}`,
    );
  }
  return cluster;
}
