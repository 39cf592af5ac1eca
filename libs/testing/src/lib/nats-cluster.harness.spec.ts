import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { jetstreamManager, StorageType } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { startNatsCluster, type TestNatsCluster } from './nats-cluster.harness.js';

jest.setTimeout(90_000);

describe('startNatsCluster', () => {
  let cluster: TestNatsCluster;
  beforeAll(async () => {
    cluster = await startNatsCluster({ nodes: 3 });
  });
  afterAll(() => cluster?.stop());

  it('runs a 3-node JetStream cluster whose R3 stream elects a new leader when its leader is SIGKILLed', async () => {
    const nc = await connect({ servers: cluster.urls(), maxReconnectAttempts: -1, reconnectTimeWait: 100 });
    try {
      const jsm = await jetstreamManager(nc);
      await jsm.streams.add({ name: 'HARNESS', subjects: ['harness.>'], storage: StorageType.File, num_replicas: 3 });
      const info = await jsm.streams.info('HARNESS');
      expect(info.config.num_replicas).toBe(3);
      expect(info.cluster?.replicas).toHaveLength(2);
      // The harness's own readiness probe (a stream on every node) is gone: tests see only their streams.
      const names: string[] = [];
      for await (const name of jsm.streams.names()) names.push(name);
      expect(names).toEqual(['HARNESS']);
      const leader = await cluster.streamLeader('HARNESS');
      await cluster.kill(leader.name);
      expect(cluster.urls()).toHaveLength(2);
      const next = await cluster.streamLeader('HARNESS');
      expect(next.name).not.toBe(leader.name);
      expect(next.alive).toBe(true);
    } finally {
      await nc.close();
    }
  });
});
