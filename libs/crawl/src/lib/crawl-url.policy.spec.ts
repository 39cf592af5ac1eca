import { describe, expect, it } from '@jest/globals';
import { crawlScope, isUrlInScope } from './crawl-scope.policy.js';
import { normalizeCrawlUrl } from './crawl-url.policy.js';

describe('normalizeCrawlUrl', () => {
  it('names one page one way: scheme and host case, default port, fragment, empty path', () => {
    expect(normalizeCrawlUrl('HTTP://Example.COM:80#x')).toBe('http://example.com/');
    expect(normalizeCrawlUrl('https://example.com:443/a?b=1#c')).toBe('https://example.com/a?b=1');
    expect(normalizeCrawlUrl('/x/../y#z', 'http://h:8080/p')).toBe('http://h:8080/y');
  });

  it('drops the query only when asked, and refuses what is not an http(s) page', () => {
    expect(normalizeCrawlUrl('http://h/p?sid=1', undefined, true)).toBe('http://h/p');
    expect(normalizeCrawlUrl('mailto:a@b.c')).toBeUndefined();
    expect(normalizeCrawlUrl('javascript:void(0)', 'http://h/')).toBeUndefined();
    expect(normalizeCrawlUrl('http://user:pw@h/')).toBeUndefined();
  });
});

describe('isUrlInScope', () => {
  const scope = (extra: Partial<Parameters<typeof crawlScope>[0]> = {}) =>
    crawlScope({
      url: 'https://www.example.com/',
      allowSubdomains: false,
      allowExternalLinks: false,
      includePaths: [],
      excludePaths: [],
      ...extra,
    });

  it('keeps the start host (with or without www.) unless subdomains or external links are allowed', () => {
    expect(isUrlInScope('https://example.com/a', scope())).toBe(true);
    expect(isUrlInScope('https://docs.example.com/a', scope())).toBe(false);
    expect(isUrlInScope('https://docs.example.com/a', scope({ allowSubdomains: true }))).toBe(true);
    expect(isUrlInScope('https://other.test/a', scope({ allowSubdomains: true }))).toBe(false);
    expect(isUrlInScope('https://other.test/a', scope({ allowExternalLinks: true }))).toBe(true);
  });

  it('applies include and exclude patterns to the path, an exclude winning', () => {
    const s = scope({ includePaths: ['^/blog/'], excludePaths: ['/drafts/'] });
    expect(isUrlInScope('https://example.com/blog/a', s)).toBe(true);
    expect(isUrlInScope('https://example.com/shop/a', s)).toBe(false);
    expect(isUrlInScope('https://example.com/blog/drafts/a', s)).toBe(false);
  });
});
