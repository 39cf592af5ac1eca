import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { NatsConnection } from '@nats-io/nats-core';
import { QUEUES, SUBJECTS } from '@trawl/contracts';
import { connectNats } from '@trawl/messaging';
import { freePort, startProcess, waitForPort, type RunningProcess } from '@trawl/testing';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { envSuffix, natsAuthConfig, redisAclTemplate } from '../src/lib/network-security.js';
import { findRepoRoot } from '../src/lib/repo-root.js';
import { SERVICE_CATALOG } from '../src/lib/service-catalog.js';
import { loadValues } from '../src/lib/trawl-values.js';

/**
 * The rendered NATS authorization and Redis ACL, loaded into a real nats-server and redis-server on loopback: what
 * each service's user may and may not do. (Passwords are test values; nothing here leaves 127.0.0.1.)
 */
const values = loadValues(findRepoRoot(import.meta.dirname));
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
    scrape.subscribe(SUBJECTS.scrapePage, { queue: 'extractor-scrape', callback: (_e, msg) => void msg.respond('ok') });
    await scrape.flush();
    const gateway = await as('gateway');
    const reply = await gateway.request(SUBJECTS.scrapePage, 'page', { timeout: 5000 });
    expect(reply.string()).toBe('ok');
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
    await expect(gateway.set('bull:trawl-scrape:x', '1')).rejects.toThrow(/NOPERM/);
    await expect(gateway.get('bull:trawl-scrape:x')).rejects.toThrow(/NOPERM/);
    await expect(gateway.flushall()).rejects.toThrow(/NOPERM/);
    await expect(gateway.config('GET', 'dir')).rejects.toThrow(/NOPERM/);
  });

  it('lets the gateway hear key revocations, and the dispatcher only read the key store', async () => {
    const listener = as('gateway');
    expect(await listener.subscribe('trawl:apikey:invalidated')).toBe(1);
    const dispatcher = as('webhook-dispatcher');
    expect(await dispatcher.hgetall('trawl:apikey:id:k1')).toEqual({});
    await expect(dispatcher.hset('trawl:apikey:id:k1', 'secret', 'x')).rejects.toThrow(/NOPERM/);
    await expect(dispatcher.get('bull:trawl-scrape:id')).rejects.toThrow(/NOPERM/);
  });

  it('lets task-service run BullMQ on its queues', async () => {
    const queue = new Queue(QUEUES.scrape, {
      connection: { host: '127.0.0.1', port, username: 'trawl-task-service', password: password('task-service') },
    });
    try {
      await queue.add('scrape', { url: 'https://example.test/' });
      expect(await queue.count()).toBe(1);
    } finally {
      await queue.close();
    }
  });

  it('lets KEDA read wait-list lengths only', async () => {
    const keda = as('keda');
    expect(await keda.llen(`bull:${QUEUES.scrape}:wait`)).toBe(1);
    await expect(keda.get('trawl:apikey:abc')).rejects.toThrow(/NOPERM/);
    await expect(keda.lpop(`bull:${QUEUES.scrape}:wait`)).rejects.toThrow(/NOPERM/);
  });
});
