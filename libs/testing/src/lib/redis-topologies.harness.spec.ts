import { describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { startRedisCluster, startRedisSentinelGroup } from './redis-topologies.harness.js';

describe('startRedisSentinelGroup', () => {
  it('starts a master with 2 replicas and 3 Sentinels, and a killed master is replaced by a replica holding its data', async () => {
    const group = await startRedisSentinelGroup({ replicas: 2, sentinels: 3 });
    try {
      expect(group.dataNodes).toHaveLength(3);
      expect(group.env.REDIS_SENTINELS.split(',')).toHaveLength(3);
      const first = await group.master();
      expect(first).toBe(group.dataNodes[0]);
      const r = new Redis({ host: '127.0.0.1', port: first.port });
      await r.set('kept', 'yes');
      expect(await r.wait(2, 5000)).toBe(2);
      r.disconnect();

      const { old, promoted } = await group.killMaster();
      expect(old).toBe(first);
      expect(old.alive()).toBe(false);
      expect(promoted).not.toBe(first);
      const p = new Redis({ host: '127.0.0.1', port: promoted.port });
      expect(await p.get('kept')).toBe('yes');
      p.disconnect();
    } finally {
      await group.stop();
    }
  });
});

describe('startRedisCluster', () => {
  it('joins 3 masters that share the 16,384 slots, so keys of different hash tags land on different masters', async () => {
    const cluster = await startRedisCluster({ masters: 3 });
    try {
      expect(cluster.env.REDIS_CLUSTER_NODES.split(',')).toHaveLength(3);
      expect(await cluster.keySlot('{a}x')).toBe(await cluster.keySlot('{a}y'));
      const owners = new Set<string>();
      for (const tag of ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'])
        owners.add((await cluster.masterOfKey(`{${tag}}`)).address);
      expect(owners.size).toBeGreaterThan(1);
      const node = await cluster.masterOfKey('{a}');
      const r = new Redis({ host: '127.0.0.1', port: node.port });
      await r.set('{a}k', '1');
      r.disconnect();
      const held = await cluster.keysByNode('{a}*');
      expect(held.get(node.address)).toEqual(['{a}k']);
    } finally {
      await cluster.stop();
    }
  });
});
