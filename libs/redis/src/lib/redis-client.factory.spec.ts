import { describe, expect, it } from '@jest/globals';
import { Cluster, Redis } from 'ioredis';
import { eventually, freePort, startRedis, startRedisCluster, startRedisSentinelGroup } from '@trawl/testing';
import { createRedisClient, redisReconnectOnError, type RedisLogger } from './redis-client.factory.js';
import { redisTopologyFromEnv } from './redis-topology.parser.js';

function recordingLogger() {
  const lines: { level: string; fields: Record<string, unknown>; message: string }[] = [];
  const logger: RedisLogger = {
    warn: (fields, message) => lines.push({ level: 'warn', fields, message }),
    info: (fields, message) => lines.push({ level: 'info', fields, message }),
  };
  return { lines, logger };
}

describe('redisReconnectOnError', () => {
  it('reconnects and resends on READONLY, UNBLOCKED and LOADING, and on nothing else', () => {
    expect(redisReconnectOnError(new Error("READONLY You can't write against a read only replica."))).toBe(2);
    expect(
      redisReconnectOnError(new Error('UNBLOCKED force unblock from blocking operation (master -> replica?)')),
    ).toBe(2);
    expect(redisReconnectOnError(new Error('LOADING Redis is loading the dataset in memory'))).toBe(2);
    expect(redisReconnectOnError(new Error('WRONGTYPE Operation against a key'))).toBe(false);
  });
});

describe('createRedisClient', () => {
  it('builds a standalone client with its name and role, and logs a refused connection once, not per attempt', async () => {
    const { lines, logger } = recordingLogger();
    const away = redisTopologyFromEnv({ REDIS_URL: `redis://127.0.0.1:${await freePort()}` })!;
    const client = createRedisClient(away, { name: 'trawl-test-away', role: 'command', logger });
    try {
      expect(client).toBeInstanceOf(Redis);
      expect((client as Redis).options.maxRetriesPerRequest).toBe(2);
      await eventually(() => lines.length > 0, 10_000);
      await new Promise((r) => setTimeout(r, 2_500)); // at least two more reconnect attempts
      expect(lines.filter((l) => l.level === 'warn')).toHaveLength(1);
      expect(lines[0].fields).toMatchObject({ redis: 'trawl-test-away' });
    } finally {
      client.disconnect();
    }

    const server = await startRedis({ persist: false });
    const blocking = createRedisClient(redisTopologyFromEnv({ REDIS_URL: server.url })!, {
      name: 'trawl-test-blocking',
      role: 'blocking',
    });
    try {
      expect((blocking as Redis).options.maxRetriesPerRequest).toBeNull();
      expect(await blocking.client('GETNAME')).toBe('trawl-test-blocking');
    } finally {
      blocking.disconnect();
      await server.stop();
    }
  });

  it('follows a Sentinel failover: after the master is SIGKILLed, the same client writes to the promoted replica', async () => {
    const group = await startRedisSentinelGroup({ replicas: 2, sentinels: 3 });
    const { lines, logger } = recordingLogger();
    const client = createRedisClient(redisTopologyFromEnv(group.env)!, { name: 'trawl-test', role: 'command', logger });
    try {
      await client.set('before', '1');
      expect(await (client as Redis).wait(2, 5000)).toBe(2);
      const { promoted } = await group.killMaster();
      await eventually(async () => (await client.set('after', '2').catch(() => undefined)) === 'OK', 30_000, 200);
      expect(await client.get('before')).toBe('1');
      const direct = new Redis({ host: '127.0.0.1', port: promoted.port });
      expect(await direct.get('after')).toBe('2');
      direct.disconnect();
      expect(lines.some((l) => l.level === 'warn')).toBe(true);
    } finally {
      client.disconnect();
      await group.stop();
    }
  });

  it('builds a Cluster client that reaches keys on every master', async () => {
    const cluster = await startRedisCluster({ masters: 3 });
    const client = createRedisClient(redisTopologyFromEnv(cluster.env)!, { name: 'trawl-test', role: 'queue' });
    try {
      expect(client).toBeInstanceOf(Cluster);
      for (const tag of ['a', 'b', 'c', 'd', 'e', 'f']) await client.set(`{${tag}}k`, tag);
      const byNode = await cluster.keysByNode('*');
      expect([...byNode.values()].filter((keys) => keys.length > 0).length).toBeGreaterThan(1);
      expect(await client.get('{e}k')).toBe('e');
    } finally {
      client.disconnect();
      await cluster.stop();
    }
  });
});
