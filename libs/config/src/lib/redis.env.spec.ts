import { describe, expect, it } from '@jest/globals';
import { GatewayEnv } from './gateway.env.js';
import { loadEnv } from './load-env.js';
import { RedisEnv } from './redis.env.js';
import { TaskServiceEnv } from './task-service.env.js';
import { WebhookDispatcherEnv } from './webhook-dispatcher.env.js';

describe('withRedisEnv', () => {
  it.each([GatewayEnv, TaskServiceEnv, WebhookDispatcherEnv, RedisEnv])(
    '%p reads every Redis topology variable, with defaults',
    (cls) => {
      const env = loadEnv(cls, {
        REDIS_SENTINELS: '127.0.0.1:26379,127.0.0.1:26380',
        REDIS_SENTINEL_PASSWORD: 's',
        REDIS_TLS: 'true',
        REDIS_MIN_REPLICAS_ACK: '2',
        WEBHOOK_SIGNING_SECRET: `whsec_${Buffer.alloc(24, 7).toString('base64')}`,
      });
      expect(env).toMatchObject({
        REDIS_URL: '',
        REDIS_SENTINELS: '127.0.0.1:26379,127.0.0.1:26380',
        REDIS_SENTINEL_NAME: 'mymaster',
        REDIS_SENTINEL_PASSWORD: 's',
        REDIS_CLUSTER_NODES: '',
        REDIS_TLS: true,
        REDIS_MIN_REPLICAS_ACK: 2,
        REDIS_REPLICAS_ACK_TIMEOUT_MS: 2000,
      });
    },
  );

  it('leaves REDIS_MIN_REPLICAS_ACK unset (decided by the topology) unless given', () => {
    expect(loadEnv(TaskServiceEnv, {}).REDIS_MIN_REPLICAS_ACK).toBeUndefined();
    expect(loadEnv(TaskServiceEnv, { REDIS_MIN_REPLICAS_ACK: '0' }).REDIS_MIN_REPLICAS_ACK).toBe(0);
  });

  it('refuses two topologies at once, naming both variables once', () => {
    expect(() =>
      loadEnv(TaskServiceEnv, { REDIS_URL: 'redis://127.0.0.1:6379', REDIS_CLUSTER_NODES: '127.0.0.1:7000' }),
    ).toThrow(
      'Invalid environment: REDIS_URL: REDIS_URL and REDIS_CLUSTER_NODES are set: set only one Redis topology (standalone, Sentinel or Cluster)',
    );
    expect(() =>
      loadEnv(GatewayEnv, { REDIS_SENTINELS: '127.0.0.1:26379', REDIS_CLUSTER_NODES: '127.0.0.1:7000' }),
    ).toThrow(/REDIS_SENTINELS: REDIS_SENTINELS and REDIS_CLUSTER_NODES are set/);
  });

  it('names each malformed Redis variable', () => {
    expect(() => loadEnv(GatewayEnv, { REDIS_SENTINELS: '127.0.0.1' })).toThrow(/REDIS_SENTINELS must be host:port/);
    expect(() => loadEnv(GatewayEnv, { REDIS_CLUSTER_NODES: 'a:1;b:2' })).toThrow(/REDIS_CLUSTER_NODES must be/);
    expect(() => loadEnv(GatewayEnv, { REDIS_URL: 'http://x' })).toThrow(/REDIS_URL must be/);
    expect(() => loadEnv(GatewayEnv, { REDIS_TLS: 'yes' })).toThrow(/REDIS_TLS must be true or false/);
    expect(() => loadEnv(GatewayEnv, { REDIS_MIN_REPLICAS_ACK: '-1' })).toThrow(/REDIS_MIN_REPLICAS_ACK must be/);
    expect(() => loadEnv(GatewayEnv, { REDIS_REPLICAS_ACK_TIMEOUT_MS: 'soon' })).toThrow(
      /REDIS_REPLICAS_ACK_TIMEOUT_MS must be/,
    );
  });
});
