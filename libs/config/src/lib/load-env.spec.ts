import { describe, expect, it } from '@jest/globals';
import { EnvValidationError, loadEnv } from './load-env.js';
import { GatewayEnv } from './gateway.env.js';

describe('loadEnv', () => {
  it('applies defaults and converts numbers', () => {
    const env = loadEnv(GatewayEnv, { PORT: '9090' });
    expect(env.PORT).toBe(9090);
    expect(env.NATS_URL).toBe('nats://127.0.0.1:4222');
  });

  it('names the bad variable', () => {
    expect(() => loadEnv(GatewayEnv, { PORT: 'eighty' })).toThrow(EnvValidationError);
    expect(() => loadEnv(GatewayEnv, { NATS_URL: 'http://x' })).toThrow(/NATS_URL/);
  });
});
