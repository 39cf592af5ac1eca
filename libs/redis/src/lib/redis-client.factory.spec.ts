import { createServer, type Server, type Socket } from 'node:net';
import { describe, expect, it } from '@jest/globals';
import { Cluster, Redis } from 'ioredis';
import { eventually, freePort, startRedis, startRedisCluster, startRedisSentinelGroup } from '@trawl/testing';
import { createRedisClient, redisReconnectOnError, type RedisLogger } from './redis-client.factory.js';
import { SteadyRedis } from './steady-redis.client.js';
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

  it('connects again when a failover announced while it reconnects ends it (ioredis would leave it closed for good)', async () => {
    const server = await startRedis({ persist: false });
    const sentinel = await startScriptedSentinel(Number(new URL(server.url).port));
    const topology = redisTopologyFromEnv({ REDIS_SENTINELS: sentinel.address, REDIS_SENTINEL_NAME: 'mymaster' })!;
    const client = createRedisClient(topology, { name: 'trawl-test-steady', role: 'command', logger: quiet });
    const admin = new Redis(server.url);
    try {
      expect(client).toBeInstanceOf(SteadyRedis);
      expect(await client.ping()).toBe('PONG');
      // The connection's failover detector listens for +switch-master.
      await eventually(() => sentinel.subscribers() > 0, 10_000);
      // The connection is lost; while the client asks the Sentinel for the master again, a failover is announced.
      sentinel.holdAnswers();
      await admin.client('KILL', 'SKIPME', 'yes', 'TYPE', 'normal');
      await eventually(() => sentinel.heldAsks() > 0, 10_000);
      sentinel.announceSwitch();
      await new Promise((r) => setTimeout(r, 100));
      sentinel.releaseAnswers();
      // ioredis ends the client here ("Connection is closed."); it connects again and answers.
      await eventually(() => (client as Redis).status === 'end', 5_000, 5);
      await eventually(async () => (await client.ping().catch(() => undefined)) === 'PONG', 10_000, 100);
    } finally {
      client.disconnect();
      admin.disconnect();
      await sentinel.close();
      await server.stop();
    }
  });

  it('stays closed once disconnected or quit, and its duplicates are kept connected too', async () => {
    const server = await startRedis({ persist: false });
    const topology = redisTopologyFromEnv({ REDIS_URL: server.url })!;
    try {
      const quitting = createRedisClient(topology, {
        name: 'trawl-test-quit',
        role: 'command',
        logger: quiet,
      }) as Redis;
      const copy = quitting.duplicate();
      expect(copy).toBeInstanceOf(SteadyRedis);
      expect(await quitting.ping()).toBe('PONG');
      await quitting.quit();
      copy.disconnect();
      const dropped = createRedisClient(topology, { name: 'trawl-test-drop', role: 'command', logger: quiet }) as Redis;
      expect(await dropped.ping()).toBe('PONG');
      dropped.disconnect();
      // Past the first delay before connecting again (1 s).
      await new Promise((r) => setTimeout(r, 1_500));
      expect([quitting.status, dropped.status, copy.status]).toEqual(['end', 'end', 'end']);
    } finally {
      await server.stop();
    }
  });
});

const quiet: RedisLogger = { warn: () => undefined, info: () => undefined };

/**
 * A Sentinel whose answers the test sequences: it names one master, can hold its answers to
 * `SENTINEL get-master-addr-by-name` until released, and announces `+switch-master` to its subscribers on demand.
 * (Real Sentinels cannot be timed to the millisecond a client asks them.)
 */
async function startScriptedSentinel(masterPort: number) {
  const subscribers = new Set<Socket>();
  let holding = false;
  const held: (() => void)[] = [];
  const bulk = (s: string) => `$${Buffer.byteLength(s)}\r\n${s}\r\n`;
  const array = (items: string[]) => `*${items.length}\r\n${items.map(bulk).join('')}`;
  const reply = (socket: Socket, command: string[]) => {
    const [name, sub] = [command[0]?.toLowerCase(), command[1]?.toLowerCase()];
    if (name === 'sentinel' && sub === 'get-master-addr-by-name') {
      const answer = () => socket.write(array(['127.0.0.1', String(masterPort)]));
      if (holding) held.push(answer);
      else answer();
    } else if (name === 'sentinel') {
      socket.write('*0\r\n');
    } else if (name === 'subscribe') {
      subscribers.add(socket);
      socket.write(`*3\r\n${bulk('subscribe')}${bulk(command[1])}:1\r\n`);
    } else {
      socket.write('+OK\r\n');
    }
  };
  const server: Server = createServer((socket) => {
    let buffer = '';
    socket.on('error', () => undefined);
    socket.on('close', () => subscribers.delete(socket));
    socket.on('data', (chunk) => {
      buffer += chunk.toString('latin1');
      // Requests are RESP arrays of bulk strings: *<n>\r\n then n times $<len>\r\n<arg>\r\n.
      for (;;) {
        const parsed = parseRequest(buffer);
        if (!parsed) return;
        buffer = buffer.slice(parsed.length);
        reply(socket, parsed.command);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    address: `127.0.0.1:${port}`,
    subscribers: () => subscribers.size,
    heldAsks: () => held.length,
    holdAnswers: () => (holding = true),
    releaseAnswers: () => {
      holding = false;
      for (const answer of held.splice(0)) answer();
    },
    announceSwitch: () => {
      const payload = `mymaster 127.0.0.1 ${masterPort} 127.0.0.1 ${masterPort}`;
      for (const s of subscribers) s.write(`*3\r\n${bulk('message')}${bulk('+switch-master')}${bulk(payload)}`);
    },
    close: async () => {
      for (const s of subscribers) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** One RESP request at the start of `input`, or undefined until all of it has arrived. */
function parseRequest(input: string): { command: string[]; length: number } | undefined {
  const head = /^\*(\d+)\r\n/.exec(input);
  if (!head) return undefined;
  let at = head[0].length;
  const command: string[] = [];
  for (let i = 0; i < Number(head[1]); i++) {
    const size = /^\$(\d+)\r\n/.exec(input.slice(at));
    if (!size) return undefined;
    at += size[0].length;
    if (input.length < at + Number(size[1]) + 2) return undefined;
    command.push(input.slice(at, at + Number(size[1])));
    at += Number(size[1]) + 2;
  }
  return { command, length: at };
}
