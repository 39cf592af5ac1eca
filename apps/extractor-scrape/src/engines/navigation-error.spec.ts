import { describe, expect, it } from '@jest/globals';
import { TrawlError } from '@trawl/contracts';
import { errors } from 'playwright-core';
import { navigationError } from './browser-scrape.engine.js';
import { titleOf } from './http-scrape.engine.js';

describe('navigationError', () => {
  const url = 'https://shop.test/item';

  it('maps a Playwright timeout to UPSTREAM_TIMEOUT', () => {
    expect(navigationError(new errors.TimeoutError('page.goto: Timeout 5000ms exceeded.'), url).code).toBe(
      'UPSTREAM_TIMEOUT',
    );
  });

  it('maps DNS and connection failures to UPSTREAM_ERROR naming the host', () => {
    const dns = navigationError(new Error('page.goto: net::ERR_NAME_NOT_RESOLVED at https://shop.test/item'), url);
    expect(dns).toMatchObject({ code: 'UPSTREAM_ERROR' });
    expect(dns.message).toContain('could not resolve host shop.test');
    expect(navigationError(new Error('page.goto: net::ERR_CONNECTION_REFUSED at x'), url).message).toContain(
      'ERR_CONNECTION_REFUSED',
    );
  });

  it('keeps a TrawlError as it is', () => {
    const refusal = new TrawlError('URL_NOT_ALLOWED', 'host x is not allowed');
    expect(navigationError(refusal, url)).toBe(refusal);
  });
});

describe('titleOf', () => {
  it('reads the title with common entities decoded', () => {
    expect(titleOf('<head><title>\n Tom &amp; Jerry &#39;s  </title></head>')).toBe("Tom & Jerry 's");
    expect(titleOf('<p>no title</p>')).toBe('');
  });
});
