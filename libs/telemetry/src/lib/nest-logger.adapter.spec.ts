import { describe, expect, it } from '@jest/globals';
import { createLogger } from './logger.factory.js';
import { NestLoggerAdapter } from './nest-logger.adapter.js';

function adapter(): { lines: Record<string, unknown>[]; nest: NestLoggerAdapter } {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({
    service: 's',
    level: 'trace',
    destination: { write: (s: string) => void lines.push(JSON.parse(s)) },
  });
  return { lines, nest: new NestLoggerAdapter(logger) };
}

describe('NestLoggerAdapter', () => {
  it('maps Nest levels to pino levels and the trailing string argument to context', () => {
    const { lines, nest } = adapter();
    nest.log('Mapped {/extract, POST} route', 'RouterExplorer');
    nest.warn('slow');
    nest.debug('d', 'Ctx');
    nest.verbose('v');
    nest.fatal('f');

    expect(lines.map((l) => [l['level'], l['msg'], l['context']])).toEqual([
      ['info', 'Mapped {/extract, POST} route', 'RouterExplorer'],
      ['warn', 'slow', undefined],
      ['debug', 'd', 'Ctx'],
      ['trace', 'v', undefined],
      ['fatal', 'f', undefined],
    ]);
  });

  it('keeps an error call’s stack and context apart, and merges an object message into the line', () => {
    const { lines, nest } = adapter();
    const stack = 'Error: boom\n    at main (main.js:1:1)';
    nest.error('bootstrap failed', stack, 'NestApplication');
    nest.error('no context', stack);
    nest.log({ msg: 'structured', jobId: 'j1' }, 'Worker');
    nest.error(new Error('thrown'));

    expect(lines[0]).toMatchObject({ level: 'error', msg: 'bootstrap failed', stack, context: 'NestApplication' });
    expect(lines[1]).toMatchObject({ msg: 'no context', stack });
    expect(lines[1]).not.toHaveProperty('context');
    expect(lines[2]).toMatchObject({ level: 'info', msg: 'structured', jobId: 'j1', context: 'Worker' });
    expect(lines[3]).toMatchObject({ level: 'error', msg: 'thrown', err: { message: 'thrown' } });
  });
});
