import { describe, expect, it } from '@jest/globals';
import { cacheUse, carriesCredentials } from './result-cache.policy.js';

describe('carriesCredentials (a request whose result is private to its credentials)', () => {
  it('sees cookie, authorization and any header but content negotiation and the user agent', () => {
    expect(carriesCredentials({ url: 'https://a.test/', headers: { Cookie: 'sid=1' } })).toBe(true);
    expect(carriesCredentials({ url: 'https://a.test/', headers: { authorization: 'Bearer t' } })).toBe(true);
    expect(carriesCredentials({ url: 'https://a.test/', headers: { 'X-Session': 'abc' } })).toBe(true);
    expect(
      carriesCredentials({ url: 'https://a.test/', headers: { 'Accept-Language': 'de', 'user-agent': 'x' } }),
    ).toBe(false);
    expect(carriesCredentials({ url: 'https://a.test/', headers: {} })).toBe(false);
  });

  it("sees the headers of /extract's scrapeOptions as its own (ADR 0039)", () => {
    const extract = (headers: Record<string, string>) => ({
      url: 'https://a.test/',
      type: 'scrape',
      scrapeOptions: { onlyMainContent: false, headers },
    });
    expect(carriesCredentials(extract({ Cookie: 'sid=1' }))).toBe(true);
    expect(carriesCredentials(extract({ 'user-agent': 'x' }))).toBe(false);
    expect(carriesCredentials({ url: 'https://a.test/', type: 'scrape', scrapeOptions: { waitFor: 5 } })).toBe(false);
  });

  it('sees a user or password in the URL; a search has none', () => {
    expect(carriesCredentials({ url: 'https://user:secret@a.test/' })).toBe(true);
    expect(carriesCredentials({ url: 'https://user@a.test/' })).toBe(true);
    expect(carriesCredentials({ url: 'https://a.test/?q=1' })).toBe(false);
    expect(carriesCredentials({ q: 'coffee', num: 10 })).toBe(false);
  });
});

describe('cacheUse (only what a caller or the operator asked to keep is kept)', () => {
  it('keeps nothing a call did not ask for: no maxAge and no default, or maxAge 0', () => {
    expect(cacheUse({}, 0, false)).toEqual({ readMaxAgeMs: 0, store: false });
    expect(cacheUse({ maxAge: 0 }, 0, false)).toEqual({ readMaxAgeMs: 0, store: false });
    expect(cacheUse({ maxAge: 0 }, 60_000, false)).toEqual({ readMaxAgeMs: 0, store: false });
  });

  it('reads and keeps with a maxAge above 0, the caller’s or the operator’s default', () => {
    expect(cacheUse({ maxAge: 60_000 }, 0, false)).toEqual({ readMaxAgeMs: 60_000, store: true });
    expect(cacheUse({}, 30_000, false)).toEqual({ readMaxAgeMs: 30_000, store: true });
  });

  it('storeInCache decides the keeping: true keeps even with maxAge 0, false never keeps', () => {
    expect(cacheUse({ maxAge: 0, storeInCache: true }, 0, false)).toEqual({ readMaxAgeMs: 0, store: true });
    expect(cacheUse({ maxAge: 60_000, storeInCache: false }, 0, false)).toEqual({ readMaxAgeMs: 60_000, store: false });
  });

  it('a call with credentials neither reads nor keeps unless it says storeInCache: true', () => {
    expect(cacheUse({ maxAge: 60_000 }, 0, true)).toEqual({ readMaxAgeMs: 0, store: false });
    expect(cacheUse({}, 60_000, true)).toEqual({ readMaxAgeMs: 0, store: false });
    expect(cacheUse({ maxAge: 60_000, storeInCache: false }, 0, true)).toEqual({ readMaxAgeMs: 0, store: false });
    expect(cacheUse({ maxAge: 60_000, storeInCache: true }, 0, true)).toEqual({ readMaxAgeMs: 60_000, store: true });
  });
});
