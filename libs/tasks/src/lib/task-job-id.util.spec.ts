import { describe, expect, it } from '@jest/globals';
import { UnrecoverableError } from 'bullmq';
import { QUEUES, TrawlError } from '@trawl/contracts';
import { toAttemptError, wireErrorOf } from './task-error.mapper.js';
import { childIndexOf, childJobId, newJobId, queueOfJobId } from './task-job-id.util.js';

describe('job ids', () => {
  it('name their queue, so a lookup reads one queue', () => {
    for (const queue of Object.values(QUEUES)) expect(queueOfJobId(newJobId(queue))).toBe(queue);
    expect(newJobId(QUEUES.mpMaps)).toMatch(/^mpMaps_[0-9a-f-]{36}$/);
  });

  it('never contain ":" (BullMQ refuses it) and are unique', () => {
    const ids = new Set(Array.from({ length: 1000 }, () => newJobId(QUEUES.scrape)));
    expect(ids.size).toBe(1000);
    expect([...ids].some((id) => id.includes(':'))).toBe(false);
  });

  it('give a child its parent and index, read back from the child job key', () => {
    const parent = newJobId(QUEUES.batch);
    const child = childJobId(QUEUES.maps, parent, 7);
    expect(queueOfJobId(child)).toBe(QUEUES.maps);
    expect(childIndexOf(`bull:${QUEUES.maps}:${child}`)).toBe(7);
  });

  it('name no queue for ids we did not make', () => {
    expect(queueOfJobId('12345')).toBeUndefined();
    expect(queueOfJobId('nope_1')).toBeUndefined();
    expect(queueOfJobId('constructor_1')).toBeUndefined();
    expect(queueOfJobId('scrape_a:b')).toBeUndefined();
  });
});

describe('attempt errors', () => {
  it('let BullMQ retry a retryable error and fail a permanent one at once', () => {
    expect(toAttemptError(new TrawlError('UPSTREAM_TIMEOUT', 'slow'))).not.toBeInstanceOf(UnrecoverableError);
    expect(toAttemptError(new TrawlError('PAGE_NOT_RECOGNISED', 'what'))).toBeInstanceOf(UnrecoverableError);
    expect(toAttemptError(new Error('boom'))).toBeInstanceOf(UnrecoverableError);
  });

  it('keep the wire code in the failed reason and no internals in the stack', () => {
    const e = toAttemptError(new TrawlError('UPSTREAM_BLOCKED', 'captcha'));
    expect(e.message).toBe('UPSTREAM_BLOCKED: captcha');
    expect(e.stack).toBe('UPSTREAM_BLOCKED: captcha');
    expect(wireErrorOf(e.message)).toEqual({ code: 'UPSTREAM_BLOCKED', message: 'captcha', retryable: true });
    expect(toAttemptError(new Error('secret db password')).message).not.toContain('secret');
    expect(wireErrorOf('job stalled more than allowable limit')).toMatchObject({ code: 'INTERNAL' });
    expect(wireErrorOf(undefined)).toBeNull();
  });
});
