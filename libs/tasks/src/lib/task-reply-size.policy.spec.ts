import { describe, expect, it } from '@jest/globals';
import type { Job } from 'bullmq';
import fc from 'fast-check';
import { DEFAULT_JOB_OPTIONS, LIMITS } from '@trawl/contracts';
import { MAX_JOB_PRIORITY } from './task-admission.service.js';
import type { TaskJobData } from './task-job-data.types.js';
import { jsonStringBytes, replyBytesOf, urlBatchReplyBytes } from './task-reply-size.policy.js';
import { toBatchJob } from './task-views.mapper.js';

/** Any string: lone surrogates, astral characters, quotes, backslashes, control characters. */
const anyString = fc.string({ unit: 'binary', maxLength: 60 });

const template = fc.record(
  {
    kind: fc.constant('url' as const),
    url: fc.constant(''),
    timeout: fc.integer({ min: 1, max: 600_000 }),
    webhook: anyString,
    type: fc.constantFrom('scrape' as const, 'retail' as const, 'mp-maps' as const, 'mp-search' as const),
    params: fc.dictionary(anyString, anyString, { maxKeys: 3 }),
    engine: fc.constantFrom('http' as const, 'browser' as const, 'auto' as const),
    apiKeyId: anyString,
    trace: fc.record({ traceparent: anyString }),
  },
  { requiredKeys: ['kind', 'url', 'timeout', 'webhook', 'type'] },
);

/** A job as BullMQ returns it, with the longest fixed fields a Trawl job can have. */
function longestJob(data: TaskJobData): Job<TaskJobData> {
  return {
    name: 'mp-search',
    data,
    opts: { ...DEFAULT_JOB_OPTIONS, jobId: 'x', priority: MAX_JOB_PRIORITY },
    id: `mpSearch_${'f'.repeat(36)}`,
    progress: 0,
    returnvalue: null,
    stacktrace: null,
    priority: MAX_JOB_PRIORITY,
    attemptsStarted: 0,
    attemptsMade: 0,
    timestamp: 9_999_999_999_999,
    queueQualifiedName: 'bull:{mp-search}:trawl-mp-search',
  } as unknown as Job<TaskJobData>;
}

describe('reply size of a batch submission', () => {
  it('jsonStringBytes is the UTF-8 length of the string as JSON', () => {
    fc.assert(
      fc.property(anyString, (s) => {
        expect(jsonStringBytes(s)).toBe(Buffer.byteLength(JSON.stringify(s)));
      }),
    );
    expect(jsonStringBytes('https://a.test/p?q=1')).toBe(22);
    expect(jsonStringBytes('a"b\\c\u00e9\n')).toBe(Buffer.byteLength(JSON.stringify('a"b\\c\u00e9\n')));
  });

  it("urlBatchReplyBytes is replyBytesOf of the batch's data, without writing each job's JSON", () => {
    fc.assert(
      fc.property(template, fc.array(anyString, { maxLength: 20 }), (t, urls) => {
        const data = urls.map((url) => ({ ...t, url }));
        expect(urlBatchReplyBytes(t, urls)).toBe(replyBytesOf(data));
      }),
    );
  });

  it('never under-estimates the reply the submission sends (the job objects as JSON)', () => {
    fc.assert(
      fc.property(template, fc.array(anyString, { minLength: 1, maxLength: 20 }), (t, urls) => {
        const data: TaskJobData[] = urls.map((url) => ({ ...t, url }));
        const reply = { jobs: data.map((d) => toBatchJob(longestJob(d))) };
        expect(urlBatchReplyBytes(t, urls)).toBeGreaterThanOrEqual(Buffer.byteLength(JSON.stringify(reply)));
      }),
    );
  });

  it('holds for the largest URL batch too', () => {
    const t = {
      kind: 'url' as const,
      url: '',
      timeout: 25_000,
      webhook: 'https://hooks.test/h',
      type: 'scrape' as const,
    };
    const urls = Array.from({ length: LIMITS.maxBatchItems }, (_, i) => `https://site.test/p/${i}?q="\u00e9"`);
    const reply = { jobs: urls.map((url) => toBatchJob(longestJob({ ...t, url }))) };
    expect(urlBatchReplyBytes(t, urls)).toBeGreaterThanOrEqual(Buffer.byteLength(JSON.stringify(reply)));
    expect(urlBatchReplyBytes(t, urls)).toBe(replyBytesOf(urls.map((url) => ({ ...t, url }))));
  });

  it('counts page options in every job: a typical set makes a 10,000-URL batch too large for one 8 MB reply (ADR 0039)', () => {
    const base = {
      kind: 'url' as const,
      url: '',
      timeout: 25_000,
      webhook: 'https://hooks.example.com/trawl',
      type: 'scrape' as const,
    };
    const scrapeOptions = {
      formats: ['markdown'],
      onlyMainContent: false,
      includeTags: ['article', '.post-body'],
      excludeTags: ['.ad', 'nav', '#comments'],
      headers: {
        'User-Agent':
          'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36',
        Cookie: 'session=0123456789abcdef0123456789abcdef',
      },
      waitFor: 1000,
      blockAds: false,
    };
    const urls = Array.from(
      { length: LIMITS.maxBatchItems },
      (_, i) => `https://example.com/articles/2026/11/a-${String(i).padStart(5, '0')}`,
    );
    const limit = 8 * 1024 * 1024 - 4096;
    expect(urlBatchReplyBytes(base, urls)).toBeLessThan(limit);
    const withOptions = { ...base, scrapeOptions } as TaskJobData & { url: string };
    expect(urlBatchReplyBytes(withOptions, urls)).toBeGreaterThan(limit);
    expect(urlBatchReplyBytes(withOptions, urls.slice(0, 9000))).toBeLessThan(limit);
  });
});
