import { describe, expect, it } from '@jest/globals';
import { describeRedisTopology, parseRedisHostPorts, redisTopologyFromEnv } from './redis-topology.parser.js';

describe('redisTopologyFromEnv', () => {
  it('reads REDIS_URL as a standalone server, rediss:// turning TLS on', () => {
    expect(redisTopologyFromEnv({ REDIS_URL: 'redis://127.0.0.1:6379' })).toEqual({
      kind: 'standalone',
      url: 'redis://127.0.0.1:6379',
      tls: false,
      username: undefined,
      password: undefined,
    });
    expect(redisTopologyFromEnv({ REDIS_URL: 'rediss://127.0.0.1:6380' })).toMatchObject({ tls: true });
  });

  it('reads REDIS_SENTINELS with the master name (mymaster by default) and both passwords', () => {
    const t = redisTopologyFromEnv({
      REDIS_SENTINELS: '127.0.0.1:26379, [::1]:26380',
      REDIS_SENTINEL_PASSWORD: 's3',
      REDIS_PASSWORD: 'd4',
      REDIS_TLS: 'true',
    });
    expect(t).toEqual({
      kind: 'sentinel',
      sentinels: [
        { host: '127.0.0.1', port: 26379 },
        { host: '::1', port: 26380 },
      ],
      name: 'mymaster',
      sentinelPassword: 's3',
      username: undefined,
      password: 'd4',
      tls: true,
    });
    expect(describeRedisTopology(t!)).toBe('sentinel mymaster via 127.0.0.1:26379,::1:26380 (TLS)');
  });

  it('reads REDIS_CLUSTER_NODES as a cluster', () => {
    expect(redisTopologyFromEnv({ REDIS_CLUSTER_NODES: 'localhost:7000,localhost:7001' })).toMatchObject({
      kind: 'cluster',
      nodes: [
        { host: 'localhost', port: 7000 },
        { host: 'localhost', port: 7001 },
      ],
    });
  });

  it('refuses two topologies at once, naming both variables', () => {
    expect(() => redisTopologyFromEnv({ REDIS_URL: 'redis://a:1', REDIS_CLUSTER_NODES: 'a:1' })).toThrow(
      'REDIS_URL and REDIS_CLUSTER_NODES are both set: choose one Redis topology',
    );
  });

  it('answers the default URL when nothing is set, and nothing without a default', () => {
    expect(redisTopologyFromEnv({}, { defaultUrl: 'redis://127.0.0.1:6379' })).toMatchObject({ kind: 'standalone' });
    expect(redisTopologyFromEnv({ REDIS_URL: '' })).toBeUndefined();
  });

  it('names the variable of a malformed host:port or TLS switch', () => {
    expect(() => parseRedisHostPorts('127.0.0.1', 'REDIS_SENTINELS')).toThrow(/REDIS_SENTINELS must be host:port/);
    expect(() => redisTopologyFromEnv({ REDIS_CLUSTER_NODES: 'a:99999' })).toThrow(/REDIS_CLUSTER_NODES/);
    expect(() => redisTopologyFromEnv({ REDIS_URL: 'redis://a:1', REDIS_TLS: 'yes' })).toThrow(/REDIS_TLS/);
  });

  it('never puts a password in its description', () => {
    const t = redisTopologyFromEnv({ REDIS_URL: 'redis://user:secret@127.0.0.1:6379/2' })!;
    expect(describeRedisTopology(t)).toBe('standalone redis://127.0.0.1:6379/2');
  });
});
