import { describe, expect, it } from '@jest/globals';
import { DEFAULT_JOB_OPTIONS } from '@trawl/contracts';
import { MAX_JOB_PRIORITY } from './task-admission.service.js';
import { jobOptions } from './task-submitter.service.js';

describe('jobOptions', () => {
  it("is the spec's options with the job id (and priority), keys in DEFAULT_JOB_OPTIONS' order", () => {
    const opts = jobOptions('scrape_1', 3);
    expect(opts).toEqual({ ...DEFAULT_JOB_OPTIONS, jobId: 'scrape_1', priority: 3 });
    expect(Object.keys(opts)).toEqual([...Object.keys(DEFAULT_JOB_OPTIONS), 'jobId', 'priority']);
    expect(jobOptions('scrape_2')).toEqual({ ...DEFAULT_JOB_OPTIONS, jobId: 'scrape_2' });
    expect(jobOptions('scrape_3', 10 * MAX_JOB_PRIORITY).priority).toBe(MAX_JOB_PRIORITY);
  });

  it('is a fresh object each call (BullMQ may change it), backoff included', () => {
    const a = jobOptions('a');
    const b = jobOptions('b');
    expect(a.backoff).not.toBe(b.backoff);
    expect(a.backoff).not.toBe(DEFAULT_JOB_OPTIONS.backoff);
  });
});
