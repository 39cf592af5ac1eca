import { describe, expect, it } from '@jest/globals';
import type { NatsConnection, ServerInfo } from '@nats-io/nats-core';
import { natsClusterSize, streamReplicas } from './jetstream-streams.util.js';

/** A connection whose server sent this INFO (only `info` is read). */
function connectedTo(info: Partial<ServerInfo>): NatsConnection {
  return { info } as unknown as NatsConnection;
}

const single = connectedTo({ server_name: 'solo' });
const three = connectedTo({ cluster: 'c', connect_urls: ['127.0.0.1:1', '127.0.0.1:2', '127.0.0.1:3'] });
const two = connectedTo({ cluster: 'c', connect_urls: ['127.0.0.1:1', '127.0.0.1:2'] });
const unadvertised = connectedTo({ cluster: 'c' });

describe('streamReplicas', () => {
  it('follows the cluster when unset: 3 on 3 or more servers, 1 on fewer or on a lone server', () => {
    expect(streamReplicas(three, undefined)).toEqual({ count: 3, explicit: false });
    expect(streamReplicas(three, 0)).toEqual({ count: 3, explicit: false });
    expect(streamReplicas(two, 0)).toEqual({ count: 1, explicit: false });
    expect(streamReplicas(single, 0)).toEqual({ count: 1, explicit: false });
  });

  it('takes the configured count, never more than the cluster has', () => {
    expect(streamReplicas(three, 1)).toEqual({ count: 1, explicit: true });
    expect(streamReplicas(three, 5)).toEqual({ count: 3, explicit: true });
    expect(streamReplicas(single, 3)).toEqual({ count: 1, explicit: true });
  });

  it('counts the configured servers when the cluster does not advertise its members (no_advertise)', () => {
    expect(natsClusterSize(unadvertised)).toBe(1);
    expect(natsClusterSize(unadvertised, ['nats://a:4222', 'nats://b:4222', 'nats://c:4222'])).toBe(3);
    expect(natsClusterSize(single, ['nats://a:4222', 'nats://b:4222', 'nats://c:4222'])).toBe(1);
  });
});
