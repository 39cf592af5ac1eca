import { describe, expect, it } from '@jest/globals';
import { CRAWL_LIMITS, TrawlError } from '@trawl/contracts';
import { crawlPlanOf } from './crawl-plan.reader.js';

function failure(answer: Record<string, unknown>): TrawlError {
  try {
    crawlPlanOf(answer);
  } catch (e) {
    expect(e).toBeInstanceOf(TrawlError);
    return e as TrawlError;
  }
  throw new Error('expected the answer to be refused');
}

describe('crawlPlanOf: the model’s crawl options held to the crawl’s rules', () => {
  it('takes every option a plan may set, as answered, with nothing to say', () => {
    const answer = {
      includePaths: ['^/blog/'],
      excludePaths: ['/tag/'],
      maxDepth: 2,
      limit: 50,
      sitemap: 'skip',
      allowSubdomains: false,
      allowExternalLinks: false,
      ignoreQueryParameters: true,
      delay: 500,
    };
    expect(crawlPlanOf(answer)).toEqual({ options: answer, warnings: [] });
  });

  it('reads null as not chosen and an empty include list as no restriction', () => {
    expect(crawlPlanOf({ limit: null, includePaths: [], maxDepth: 1 })).toEqual({
      options: { maxDepth: 1 },
      warnings: [],
    });
  });

  it('holds numbers to the crawl’s bounds and says so', () => {
    const { options, warnings } = crawlPlanOf({ limit: 10_000_000, maxDepth: -3, delay: 120_000 });
    expect(options).toEqual({ limit: CRAWL_LIMITS.maxLimit, maxDepth: 0, delay: CRAWL_LIMITS.maxDelayMs });
    expect(warnings).toHaveLength(3);
    expect(warnings[0]).toContain(`limit: the model answered 10000000; held to ${CRAWL_LIMITS.maxLimit}`);
  });

  it('leaves out a value of the wrong type and an option a plan may not set, naming each', () => {
    const { options, warnings } = crawlPlanOf({
      limit: '50',
      maxDepth: 2.5,
      allowSubdomains: 'yes',
      sitemap: 'sometimes',
      maxConcurrency: 40,
      webhook: 'https://evil.test/',
      crawlEntireDomain: true,
    });
    expect(options).toEqual({});
    const said = warnings.join('\n');
    for (const name of [
      'limit',
      'maxDepth',
      'allowSubdomains',
      'sitemap',
      'maxConcurrency',
      'webhook',
      'crawlEntireDomain',
    ])
      expect(said).toContain(`${name}:`);
  });

  it('refuses the whole answer when a pattern does not compile: leaving it out would change the crawl’s scope', () => {
    const e = failure({ includePaths: ['^/blog/', '(unclosed'], limit: 10 });
    expect(e.code).toBe('LLM_ANSWER_INVALID');
    expect(e.message).toContain('includePaths[1] "(unclosed": not a valid regular expression');
    expect(failure({ excludePaths: [''] }).message).toContain('excludePaths[0] "": not 1-');
    expect(failure({ excludePaths: [42] }).message).toContain('not a string');
    expect(failure({ includePaths: '^/blog/' }).message).toContain('includePaths is not a list');
  });

  it('refuses more patterns than a crawl takes', () => {
    const many = Array.from({ length: CRAWL_LIMITS.maxPatterns + 1 }, (_, i) => `^/p${i}/`);
    expect(failure({ excludePaths: many }).message).toContain(`at most ${CRAWL_LIMITS.maxPatterns}`);
  });
});
