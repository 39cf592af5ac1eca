import { describe, expect, it } from '@jest/globals';
import { TrawlError } from '@trawl/contracts';
import { cleanupBound, CleanupTimeoutError, raceDeadline } from './deadline-bound.util.js';

const never = () => new Promise<never>(() => undefined);

describe('cleanupBound', () => {
  it('gives a step that settles its own outcome', async () => {
    const within = cleanupBound(Date.now() + 60_000);
    await expect(within(Promise.resolve('kept'))).resolves.toBe('kept');
    await expect(within(Promise.reject(new Error('closed')))).rejects.toThrow('closed');
  });

  it('rejects a step that never settles with CleanupTimeoutError once the budget is spent', async () => {
    const within = cleanupBound(Date.now() - 1);
    await expect(within(never())).rejects.toBeInstanceOf(CleanupTimeoutError);
  });

  it('leaves a step that fails after its bound ran out without an unhandled rejection', async () => {
    let fail!: (e: Error) => void;
    const late = new Promise<never>((_, reject) => (fail = reject));
    await expect(cleanupBound(Date.now() - 1)(late)).rejects.toBeInstanceOf(CleanupTimeoutError);
    fail(new Error('the context closed'));
    await expect(late).rejects.toThrow('the context closed');
  });
});

describe('raceDeadline', () => {
  it('gives the promise when it settles first', async () => {
    await expect(raceDeadline(Promise.resolve(7), Date.now() + 60_000, 'late')).resolves.toBe(7);
  });

  it('rejects with UPSTREAM_TIMEOUT and the message once the deadline has passed', async () => {
    const outcome = raceDeadline(never(), Date.now() - 1, 'the deadline passed while launching a browser');
    await expect(outcome).rejects.toBeInstanceOf(TrawlError);
    await expect(outcome).rejects.toMatchObject({
      code: 'UPSTREAM_TIMEOUT',
      message: 'the deadline passed while launching a browser',
    });
  });
});
