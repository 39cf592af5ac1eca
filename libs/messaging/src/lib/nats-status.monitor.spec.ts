import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { NatsConnection } from '@nats-io/nats-core';
import { eventually, startNats, type RestartableTestServer } from '@trawl/testing';
import { connectNats } from './nats-connection.factory.js';
import { followNatsStatus } from './nats-status.monitor.js';

describe('followNatsStatus (real nats-server, restarted)', () => {
  let nats: RestartableTestServer;
  let nc: NatsConnection;

  beforeAll(async () => {
    nats = await startNats();
    nc = await connectNats([nats.url], 'nats-status-spec');
  });

  afterAll(async () => {
    if (!nc.isClosed()) await nc.close();
    await nats?.stop();
  });

  it('answers disconnected while nats-server is down, connected once the connection is back, closed after close', async () => {
    const status = followNatsStatus(nc);
    expect(status()).toBe('connected');
    await nats.restart(async () => {
      await eventually(() => status() === 'disconnected', 10_000);
      // isClosed() alone does not show the outage: the connection is reconnecting, not closed.
      expect(nc.isClosed()).toBe(false);
    });
    await eventually(() => status() === 'connected', 10_000);
    await nc.flush();
    await nc.close();
    expect(status()).toBe('closed');
  });
});
