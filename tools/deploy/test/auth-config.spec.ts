import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { NatsConnection } from '@nats-io/nats-core';
import { IDEMPOTENCY_KEYS, inboxPrefixOf, PUBLISHED_OUTCOMES_KEY, QUEUES, SUBJECTS } from '@trawl/contracts';
import { connectNats } from '@trawl/messaging';
import { queuePrefix } from '@trawl/tasks';
import { createRedisClient, redisTopologyFromEnv, type RedisClient, type RedisTopologyEnv } from '@trawl/redis';
import {
  freePort,
  startProcess,
  startRedisCluster,
  waitForPort,
  type RedisClusterGroup,
  type RunningProcess,
} from '@trawl/testing';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { envSuffix, natsAuthConfig, redisAclTemplate } from '../src/lib/network-security.builder.js';
import { prioritizedKey, waitListKey } from '../src/lib/queue-keys.util.js';
import { findRepoRoot } from '../src/lib/repo-root.util.js';
import { SERVICE_CATALOG } from '../src/lib/service-catalog.constants.js';
import { renderManifests } from '../src/lib/manifests.renderer.js';
import { loadValues, type ServiceName, type TrawlValues } from '../src/lib/trawl-values.reader.js';

/**
 * The rendered NATS authorization and Redis ACL, loaded into a real nats-server and redis-server on loopback: what
 * each service's user may and may not do. (Passwords are test values; nothing here leaves 127.0.0.1.)
 */
const values = loadValues(findRepoRoot(import.meta.dirname));

/**
 * How KEDA's Redis scalers (redis, redis-sentinel, redis-cluster) measure a `listName`: this script, as KEDA's
 * pkg/scalers/redis_scaler.go sends it. A list answers LLEN, a sorted set ZCARD.
 */
const KEDA_LENGTH_SCRIPT = `
    local listName = KEYS[1]
    local listType = redis.call('type', listName).ok
    local cmd = { zset = 'zcard', set = 'scard', list = 'llen', hash = 'hlen', none = 'llen' }
    return redis.call(cmd[listType], listName)
`;
const password = (name: string): string => `pw-${name}`;

describe('the rendered NATS authorization, in a real nats-server', () => {
  let dir = '';
  let server: RunningProcess;
  let url = '';
  const open: NatsConnection[] = [];
  const as = async (user: string): Promise<NatsConnection> => {
    const nc = await connectNats([url], `test-${user}`, { user, pass: password(user) });
    open.push(nc);
    return nc;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'trawl-nats-auth-'));
    writeFileSync(join(dir, 'auth.conf'), natsAuthConfig(values));
    const port = await freePort();
    writeFileSync(join(dir, 'nats.conf'), `listen: 127.0.0.1:${port}\ninclude ./auth.conf\n`);
    const env = Object.fromEntries(
      SERVICE_CATALOG.map((s) => [`NATS_PASSWORD_${envSuffix(s.name)}`, password(s.name)]),
    );
    server = startProcess('nats-server', ['-c', join(dir, 'nats.conf')], {
      env: { PATH: process.env.PATH ?? '/usr/bin', ...env },
    });
    await waitForPort(port, '127.0.0.1', 20_000, server);
    url = `nats://127.0.0.1:${port}`;
  });

  afterAll(async () => {
    await Promise.all(open.map((nc) => nc.close()));
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a connection without the password', async () => {
    await expect(connectNats([url], 'intruder', { user: 'extractor-scrape', pass: 'wrong' })).rejects.toThrow(
      /Authorization/i,
    );
  });

  it('lets the gateway call extractor-scrape, and extractor-scrape answer', async () => {
    const scrape = await as('extractor-scrape');
    const sub = scrape.subscribe(SUBJECTS.scrapePage, {
      queue: 'extractor-scrape',
      callback: (_e, msg) => void msg.respond('ok'),
    });
    await scrape.flush();
    const gateway = await as('gateway');
    const reply = await gateway.request(SUBJECTS.scrapePage, 'page', { timeout: 5000 });
    expect(reply.string()).toBe('ok');
    // Drained (the server has confirmed the UNSUB) so that no later test's request on this subject meets it.
    await sub.drain();
  });

  it('does not let extractor-scrape submit tasks or call another extractor, though both have responders', async () => {
    const tasks = await as('task-service');
    let submitted = 0;
    tasks.subscribe(SUBJECTS.taskSubmit, {
      callback: (_e, msg) => {
        submitted++;
        msg.respond('job');
      },
    });
    const retail = await as('extractor-retail');
    retail.subscribe(SUBJECTS.extractRetail, { callback: (_e, msg) => void msg.respond('record') });
    await Promise.all([tasks.flush(), retail.flush()]);
    const scrape = await as('extractor-scrape');
    await expect(scrape.request(SUBJECTS.taskSubmit, 'batch', { timeout: 1500 })).rejects.toThrow();
    await expect(scrape.request(SUBJECTS.extractRetail, 'x', { timeout: 1500 })).rejects.toThrow();
    expect(submitted).toBe(0);
    // The same request from the gateway's user goes through: the refusal is the permission, not the responder.
    expect((await (await as('gateway')).request(SUBJECTS.taskSubmit, 'batch', { timeout: 5000 })).string()).toBe('job');
  });

  it("does not let one service read another's reply inboxes: each user reads its own prefix only", async () => {
    const errors: string[] = [];
    const spy = await connectNats([url], 'test-spy', { user: 'extractor-scrape', pass: password('extractor-scrape') });
    open.push(spy);
    void (async () => {
      for await (const s of spy.status()) if (s.type === 'error') errors.push(String(s.error));
    })();
    const seen: string[] = [];
    spy.subscribe(`${inboxPrefixOf('gateway')}.>`, { callback: (_e, msg) => void seen.push(msg.subject) });
    spy.subscribe('_INBOX.>', { callback: (_e, msg) => void seen.push(msg.subject) });
    await spy.flush();
    const scrape = await as('extractor-scrape');
    scrape.subscribe(SUBJECTS.scrapePage, { callback: (_e, msg) => void msg.respond('secret page') });
    await scrape.flush();
    const gateway = await as('gateway');
    const reply = await gateway.request(SUBJECTS.scrapePage, 'page', { timeout: 5000 });
    expect(reply.string()).toBe('secret page');
    await spy.flush();
    expect(seen).toEqual([]);
    expect(errors.join()).toMatch(/Permissions Violation for Subscription/i);
  });
});

describe('the rendered Redis ACL, in a real redis-server', () => {
  let dir = '';
  let server: RunningProcess;
  let port = 0;
  const clients: Redis[] = [];
  const as = (user: string): Redis => {
    const r = new Redis({
      host: '127.0.0.1',
      port,
      username: `trawl-${user}`,
      password: password(user),
      maxRetriesPerRequest: 1,
      connectionName: `trawl-${user}`,
    });
    clients.push(r);
    return r;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'trawl-redis-acl-'));
    const acl = redisAclTemplate(values).replace(/\$\{REDIS_PASSWORD_([A-Z_]+)\}/g, (_m, name: string) =>
      password(name.toLowerCase().replace(/_/g, '-')),
    );
    writeFileSync(join(dir, 'users.acl'), acl);
    port = await freePort();
    server = startProcess('redis-server', [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      dir,
      '--aclfile',
      join(dir, 'users.acl'),
    ]);
    await waitForPort(port, '127.0.0.1', 20_000, server);
  });

  afterAll(async () => {
    for (const r of clients) r.disconnect();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('turns the default user off: a client without credentials may run nothing', async () => {
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write('GET trawl:apikey:abc\r\n'));
      socket.setEncoding('utf8');
      socket.once('data', (data: string) => (socket.destroy(), resolve(data)));
      socket.once('error', reject);
    });
    expect(answer).toMatch(/^-NOAUTH/);
  });

  it('lets the gateway use its keys, and nothing of BullMQ, and no dangerous command', async () => {
    const gateway = as('gateway');
    expect(await gateway.set('trawl:apikey:abc', '1')).toBe('OK');
    expect(await gateway.incr('trawl:rl:abc')).toBe(1);
    await expect(gateway.set(`${queuePrefix(QUEUES.scrape)}:x`, '1')).rejects.toThrow(/NOPERM/);
    await expect(gateway.get(`${queuePrefix(QUEUES.scrape)}:x`)).rejects.toThrow(/NOPERM/);
    await expect(gateway.flushall()).rejects.toThrow(/NOPERM/);
    await expect(gateway.config('GET', 'dir')).rejects.toThrow(/NOPERM/);
  });

  it('lets the gateway hear key revocations, and the dispatcher only read the key store', async () => {
    const listener = as('gateway');
    expect(await listener.subscribe('trawl:apikey:invalidated')).toBe(1);
    const dispatcher = as('webhook-dispatcher');
    expect(await dispatcher.hgetall('trawl:apikey:id:k1')).toEqual({});
    await expect(dispatcher.hset('trawl:apikey:id:k1', 'secret', 'x')).rejects.toThrow(/NOPERM/);
    await expect(dispatcher.get(`${queuePrefix(QUEUES.scrape)}:id`)).rejects.toThrow(/NOPERM/);
  });

  it('lets task-service run BullMQ on its queues', async () => {
    const queue = new Queue(QUEUES.scrape, {
      connection: { host: '127.0.0.1', port, username: 'trawl-task-service', password: password('task-service') },
      prefix: queuePrefix(QUEUES.scrape),
    });
    try {
      await queue.add('scrape', { url: 'https://example.test/' });
      expect(await queue.count()).toBe(1);
    } finally {
      await queue.close();
    }
  });

  it('lets task-service keep its idempotency records and outcome marks, and touch no other Trawl key or channel', async () => {
    const tasks = as('task-service');
    expect(await tasks.set(`${IDEMPOTENCY_KEYS}k1:abc`, '{}', 'PX', 1000, 'NX')).toBe('OK');
    expect(await tasks.zadd(PUBLISHED_OUTCOMES_KEY, 1, 'job-1')).toBe(1);
    await expect(tasks.hgetall('trawl:apikey:{store}:id:k1')).rejects.toThrow(/NOPERM/);
    await expect(tasks.incr('trawl:rl:k1')).rejects.toThrow(/NOPERM/);
    await expect(tasks.publish('trawl:apikey:invalidated', 'x')).rejects.toThrow(/NOPERM/);
  });

  it('lets KEDA measure waiting jobs, with and without a priority, and nothing else', async () => {
    const queue = new Queue(QUEUES.retail, {
      connection: { host: '127.0.0.1', port, username: 'trawl-task-service', password: password('task-service') },
      prefix: queuePrefix(QUEUES.retail),
    });
    try {
      await queue.add('retail', { url: 'https://example.test/' }, { priority: 3 }); // as every fair-share job
    } finally {
      await queue.close();
    }
    const keda = as('keda');
    expect(await keda.eval(KEDA_LENGTH_SCRIPT, 1, waitListKey(QUEUES.scrape))).toBe(1);
    expect(await keda.eval(KEDA_LENGTH_SCRIPT, 1, prioritizedKey(QUEUES.retail))).toBe(1);
    expect(await keda.llen(waitListKey(QUEUES.scrape))).toBe(1);
    await expect(keda.get('trawl:apikey:abc')).rejects.toThrow(/NOPERM/);
    await expect(keda.lpop(waitListKey(QUEUES.scrape))).rejects.toThrow(/NOPERM/);
  });
});

/** Polls `check` every 100 ms until it returns true, at most `ms`. */
async function eventually(check: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check().catch(() => false))) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('the rendered Redis ACL behind Sentinel: a real master, replica and Sentinel on loopback', () => {
  // The default values (redis.topology: sentinel): the replica replicates as the replication user, the Sentinel
  // watches as the Sentinel user, and a service finds the master through the Sentinel as its own user.
  const sentinelValues = loadValues(findRepoRoot(import.meta.dirname));
  let dir = '';
  const servers: RunningProcess[] = [];
  const clients: (Redis | RedisClient)[] = [];
  let masterPort = 0;
  let replicaPort = 0;
  let sentinelPort = 0;

  beforeAll(async () => {
    expect(sentinelValues.redis.topology).toBe('sentinel');
    dir = mkdtempSync(join(tmpdir(), 'trawl-redis-sentinel-acl-'));
    const acl = redisAclTemplate(sentinelValues).replace(/\$\{REDIS_PASSWORD_([A-Z_]+)\}/g, (_m, name: string) =>
      password(name.toLowerCase().replace(/_/g, '-')),
    );
    [masterPort, replicaPort, sentinelPort] = [await freePort(), await freePort(), await freePort()];
    const node = (name: string, port: number, extra: string[]) => {
      const nodeDir = join(dir, name);
      mkdirSync(nodeDir);
      writeFileSync(join(nodeDir, 'users.acl'), acl);
      return startProcess('redis-server', [
        ...['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', nodeDir],
        ...['--aclfile', join(nodeDir, 'users.acl'), '--replica-announce-ip', '127.0.0.1'],
        ...extra,
      ]);
    };
    servers.push(node('master', masterPort, []));
    await waitForPort(masterPort, '127.0.0.1', 20_000, servers[0]);
    servers.push(
      node('replica', replicaPort, [
        ...['--replicaof', '127.0.0.1', String(masterPort)],
        ...['--masteruser', 'trawl-replication', '--masterauth', password('replication')],
      ]),
    );
    const name = sentinelValues.redis.sentinelName ?? 'mymaster';
    writeFileSync(
      join(dir, 'sentinel.conf'),
      [
        `port ${sentinelPort}`,
        'bind 127.0.0.1',
        `dir ${dir}`,
        'sentinel announce-ip 127.0.0.1',
        `sentinel monitor ${name} 127.0.0.1 ${masterPort} 1`,
        `sentinel auth-user ${name} trawl-sentinel`,
        `sentinel auth-pass ${name} ${password('sentinel')}`,
        `sentinel down-after-milliseconds ${name} 5000`,
        '',
      ].join('\n'),
    );
    servers.push(startProcess('redis-server', [join(dir, 'sentinel.conf'), '--sentinel']));
    await waitForPort(sentinelPort, '127.0.0.1', 20_000, servers[2]);
  });

  afterAll(async () => {
    for (const r of clients) r.disconnect();
    for (const s of servers.reverse()) await s.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lets the replica replicate as the replication user, and the Sentinel see the master and its replica', async () => {
    const connectAs = (port: number, user?: string) => {
      const r = new Redis({
        host: '127.0.0.1',
        port,
        maxRetriesPerRequest: 1,
        ...(user ? { username: `trawl-${user}`, password: password(user) } : {}),
      });
      clients.push(r);
      return r;
    };
    // The replication user may not even read INFO; the master's view (read as the Sentinel user) shows the link.
    const master = connectAs(masterPort, 'sentinel');
    const sentinel = connectAs(sentinelPort);
    await eventually(
      async () => /connected_slaves:1/.test(await master.info('replication')),
      20_000,
      'the replica to sync',
    );
    await eventually(
      async () => {
        const fields = (await sentinel.call('SENTINEL', 'MASTER', sentinelValues.redis.sentinelName ?? '')) as string[];
        const info = Object.fromEntries(fields.flatMap((v, i) => (i % 2 === 0 ? [[v, fields[i + 1]]] : [])));
        return info['num-slaves'] === '1' && !/disconnected|s_down/.test(info['flags'] ?? '');
      },
      20_000,
      'the Sentinel to watch the master and find the replica',
    );
  });

  it('lets task-service reach the master through the Sentinel as its own user, from its rendered env, and run BullMQ', async () => {
    const topology = redisTopologyFromEnv(
      renderedRedisEnv(sentinelValues, 'task-service', { REDIS_SENTINELS: `127.0.0.1:${sentinelPort}` }),
    );
    if (topology?.kind !== 'sentinel') throw new Error('no sentinel topology');
    const connection = createRedisClient(topology, { name: 'test-task-service', role: 'queue' });
    clients.push(connection);
    const queue = new Queue(QUEUES.scrape, { connection, prefix: queuePrefix(QUEUES.scrape) });
    try {
      await queue.add('scrape', { url: 'https://example.test/' });
      expect(await queue.count()).toBe(1);
    } finally {
      await queue.close();
    }
  });
});

/**
 * The Redis variables a service's container gets from the rendered manifests, its password filled in, with
 * `loopback` replacing the in-cluster addresses.
 */
function renderedRedisEnv(v: TrawlValues, service: string, loopback: RedisTopologyEnv): RedisTopologyEnv {
  const d = renderManifests(v).find((o) => o.kind === 'Deployment' && o.metadata?.name === `trawl-${service}`);
  const env: Record<string, string> = {};
  for (const e of (d?.kind === 'Deployment' ? d.spec?.template.spec?.containers[0]?.env : undefined) ?? []) {
    if (!e.name.startsWith('REDIS_')) continue;
    if (e.value !== undefined) env[e.name] = e.value;
    else if (e.valueFrom?.secretKeyRef?.key === `REDIS_PASSWORD_${envSuffix(service as ServiceName)}`)
      env[e.name] = password(service);
  }
  return { ...env, ...loopback };
}

describe('the rendered Redis env and ACL on a Redis Cluster of 3 masters on loopback', () => {
  const clusterValues = loadValues(findRepoRoot(import.meta.dirname), [
    join(findRepoRoot(import.meta.dirname), 'deploy', 'k8s', 'values-redis-cluster.yaml'),
  ]);
  let cluster: RedisClusterGroup;
  const clients: RedisClient[] = [];
  const queues: Queue[] = [];
  let mastersHoldingWaitLists = new Set<string>();

  beforeAll(async () => {
    expect(clusterValues.redis.topology).toBe('cluster');
    cluster = await startRedisCluster({ masters: 3 });
    mastersHoldingWaitLists = new Set(
      await Promise.all(Object.values(QUEUES).map(async (q) => (await cluster.masterOfKey(waitListKey(q))).address)),
    );
    // The rendered ACL on every node (as `ACL SETUSER`, the default user last: off).
    const lines = redisAclTemplate(clusterValues)
      .replace(/\$\{REDIS_PASSWORD_([A-Z_]+)\}/g, (_m, name: string) => password(name.toLowerCase().replace(/_/g, '-')))
      .trim()
      .split('\n')
      .map((l) => l.split(' ').slice(1));
    for (const node of cluster.nodes) {
      const admin = new Redis({ host: '127.0.0.1', port: node.port, maxRetriesPerRequest: 1 });
      try {
        for (const [user, ...rules] of [
          ...lines.filter((l) => l[0] !== 'default'),
          ...lines.filter((l) => l[0] === 'default'),
        ])
          await admin.call('ACL', 'SETUSER', user ?? '', ...rules);
      } finally {
        admin.disconnect();
      }
    }
  }, 90_000);

  afterAll(async () => {
    await Promise.all(queues.map((q) => q.close()));
    for (const c of clients) c.disconnect();
    await cluster?.stop();
  });

  const clientFor = (service: string) => {
    const topology = redisTopologyFromEnv(renderedRedisEnv(clusterValues, service, cluster.env));
    if (topology?.kind !== 'cluster') throw new Error(`no cluster topology for ${service}`);
    const client = createRedisClient(topology, { name: `test-${service}`, role: 'queue' });
    clients.push(client);
    return client;
  };

  it('lets task-service run BullMQ on every queue through the cluster client as its own user', async () => {
    const connection = clientFor('task-service');
    for (const name of Object.values(QUEUES)) {
      const queue = new Queue(name, { connection, prefix: queuePrefix(name) });
      queues.push(queue);
      await queue.add('job', { url: 'https://example.test/' });
      expect(await queue.count()).toBe(1);
    }
    // Per-queue hash tags: the waiting lists do not all sit on one master.
    expect(mastersHoldingWaitLists.size).toBeGreaterThan(1);
  }, 60_000);

  it('lets KEDA read every waiting list on its master, and nothing else', async () => {
    const kedaTopology = redisTopologyFromEnv({
      ...cluster.env,
      REDIS_USERNAME: 'trawl-keda',
      REDIS_PASSWORD: password('keda'),
    });
    if (kedaTopology?.kind !== 'cluster') throw new Error('no cluster topology');
    const keda = createRedisClient(kedaTopology, { name: 'test-keda', role: 'command' });
    clients.push(keda);
    for (const name of Object.values(QUEUES)) {
      expect(await keda.llen(waitListKey(name))).toBe(1);
      expect(await keda.eval(KEDA_LENGTH_SCRIPT, 1, waitListKey(name))).toBe(1);
      expect(await keda.eval(KEDA_LENGTH_SCRIPT, 1, prioritizedKey(name))).toBe(0);
    }
    await expect(keda.lpop(waitListKey(QUEUES.scrape))).rejects.toThrow(/NOPERM/);
  }, 60_000);
});
