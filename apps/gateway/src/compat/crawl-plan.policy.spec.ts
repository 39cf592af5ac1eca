import { describe, expect, it } from '@jest/globals';
import { withPlan } from './crawl-plan.policy.js';

describe('withPlan', () => {
  it('fills what the caller left out and keeps what the caller gave, the prompt taken off', () => {
    const given = { url: 'https://a.test/', prompt: 'the blog, 20 pages', limit: 5, includePaths: null };
    const planned = { limit: 20, includePaths: ['^/blog/'], maxDepth: 2 };
    expect(withPlan(given, planned)).toEqual({
      url: 'https://a.test/',
      limit: 5,
      includePaths: ['^/blog/'],
      maxDepth: 2,
    });
  });

  it('keeps a caller’s false and empty list: given is given', () => {
    const merged = withPlan(
      { allowSubdomains: false, excludePaths: [] },
      { allowSubdomains: true, excludePaths: ['x'] },
    );
    expect(merged).toEqual({ allowSubdomains: false, excludePaths: [] });
  });

  it('does not change the caller’s object', () => {
    const given = { url: 'u', prompt: 'p' };
    withPlan(given, { limit: 3 });
    expect(given).toEqual({ url: 'u', prompt: 'p' });
  });
});
