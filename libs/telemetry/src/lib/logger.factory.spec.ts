import { describe, expect, it } from '@jest/globals';
import { createLogger } from './logger.factory.js';

function capture(): { lines: Record<string, unknown>[]; destination: { write(s: string): void } } {
  const lines: Record<string, unknown>[] = [];
  return { lines, destination: { write: (s: string) => void lines.push(JSON.parse(s)) } };
}

describe('createLogger', () => {
  it('writes one JSON object per line with level label, ISO time, service and bound request/task ids', () => {
    const { lines, destination } = capture();
    const logger = createLogger({ service: 'gateway', destination, bindings: { instance: 'gw-1' } });
    logger.child({ requestId: 'req-1' }).info({ route: '/extract' }, 'request done');
    logger.child({ taskId: 'task-9' }).warn('retrying');

    expect(lines[0]).toMatchObject({
      level: 'info',
      service: 'gateway',
      instance: 'gw-1',
      requestId: 'req-1',
      route: '/extract',
      msg: 'request done',
    });
    expect(lines[1]).toMatchObject({ level: 'warn', taskId: 'task-9', msg: 'retrying' });
    expect(String(lines[0]?.['time'])).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('redacts API keys, authorization headers and webhook secrets at the top level, one level down and under headers', () => {
    const { lines, destination } = capture();
    const logger = createLogger({ service: 'gateway', destination });
    logger.info(
      {
        'x-api-key': 'top-key',
        apiKey: 'k1',
        headers: { 'x-api-key': 'k2', authorization: 'Bearer t', 'content-type': 'application/json' },
        req: {
          method: 'POST',
          headers: { 'x-api-key': 'k3', authorization: 'Basic b', cookie: 'c=1', 'x-admin-key': 'adm1' },
        },
        webhook: { url: 'https://example.test/hook', secret: 'whsec_abc' },
        delivery: { headers: { 'webhook-signature': 'v1,sig' } },
        env: { WEBHOOK_SIGNING_SECRET: 'whsec_env', API_KEYS: 'a,b', ADMIN_API_KEY: 'adm2', LOG_LEVEL: 'info' },
      },
      'incoming',
    );
    const line = JSON.stringify(lines[0]);

    for (const secret of [
      'top-key',
      'k1',
      'k2',
      'k3',
      'Bearer t',
      'Basic b',
      'c=1',
      'whsec_abc',
      'v1,sig',
      'whsec_env',
      'a,b',
      'adm1',
      'adm2',
    ]) {
      expect(line).not.toContain(secret);
    }
    expect(lines[0]).toMatchObject({
      headers: { 'x-api-key': '[redacted]', 'content-type': 'application/json' },
      req: { method: 'POST' },
      webhook: { url: 'https://example.test/hook', secret: '[redacted]' },
      env: { LOG_LEVEL: 'info' },
    });
  });

  it('drops lines below the configured level', () => {
    const { lines, destination } = capture();
    const logger = createLogger({ service: 'x', level: 'warn', destination });
    logger.info('hidden');
    logger.error('shown');
    expect(lines.map((l) => l['msg'])).toEqual(['shown']);
  });
});
