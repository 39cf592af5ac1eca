import { hostname } from 'node:os';
import { describe, expect, it } from '@jest/globals';
import { EnvValidationError, loadEnv } from './load-env.util.js';
import { GatewayEnv } from './gateway.env.js';
import { TaskServiceEnv } from './task-service.env.js';

describe('loadEnv', () => {
  it('applies defaults and converts numbers', () => {
    const env = loadEnv(GatewayEnv, { PORT: '9090' });
    expect(env.PORT).toBe(9090);
    expect(env.NATS_URL).toEqual(['nats://127.0.0.1:4222']);
  });

  it('names the bad variable', () => {
    expect(() => loadEnv(GatewayEnv, { PORT: 'eighty' })).toThrow(EnvValidationError);
    expect(() => loadEnv(GatewayEnv, { NATS_URL: 'http://x' })).toThrow(/NATS_URL/);
  });

  it('names the instance hostname-pid unless INSTANCE_ID says otherwise (empty counts as unset)', () => {
    expect(loadEnv(GatewayEnv, {}).INSTANCE_ID).toBe(`${hostname()}-${process.pid}`);
    expect(loadEnv(GatewayEnv, { INSTANCE_ID: '' }).INSTANCE_ID).toBe(`${hostname()}-${process.pid}`);
    expect(loadEnv(GatewayEnv, { INSTANCE_ID: 'gw-1' }).INSTANCE_ID).toBe('gw-1');
    expect(() => loadEnv(GatewayEnv, { INSTANCE_ID: 'gw 1' })).toThrow(/INSTANCE_ID/);
  });

  it('binds the gateway (HOST) and the ops servers (OPS_HOST) to loopback unless configured (ADR 0021)', () => {
    expect(loadEnv(GatewayEnv, {}).HOST).toBe('127.0.0.1');
    expect(loadEnv(TaskServiceEnv, {}).OPS_HOST).toBe('127.0.0.1');
    expect(loadEnv(GatewayEnv, { HOST: '0.0.0.0' }).HOST).toBe('0.0.0.0');
    expect(loadEnv(TaskServiceEnv, { OPS_HOST: '0.0.0.0' }).OPS_HOST).toBe('0.0.0.0');
  });

  it('reads NATS_STREAM_REPLICAS as 1..5, unset (0) following the cluster; anything else names it', () => {
    expect(loadEnv(TaskServiceEnv, {}).NATS_STREAM_REPLICAS).toBe(0);
    expect(loadEnv(GatewayEnv, { NATS_STREAM_REPLICAS: '3' }).NATS_STREAM_REPLICAS).toBe(3);
    for (const bad of ['6', '-1', 'three', '2.5']) {
      expect(() => loadEnv(TaskServiceEnv, { NATS_STREAM_REPLICAS: bad })).toThrow(/NATS_STREAM_REPLICAS/);
    }
  });
});
