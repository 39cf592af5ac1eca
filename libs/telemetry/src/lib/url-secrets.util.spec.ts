import { describe, expect, it } from '@jest/globals';
import type { Span } from '@opentelemetry/api';
import { redactSpanUrls, redactUrlSecrets } from './url-secrets.util.js';

describe('redactUrlSecrets', () => {
  it('replaces the value of api_key (and other credential parameters), keeps the rest as it is', () => {
    expect(redactUrlSecrets('/search.json?engine=google&api_key=sk-123&q=a+b')).toBe(
      '/search.json?engine=google&api_key=REDACTED&q=a+b',
    );
    expect(redactUrlSecrets('http://h:1/x?token=t&API_KEY=k#f')).toBe('http://h:1/x?token=REDACTED&API_KEY=REDACTED#f');
  });

  it('leaves a URL without credentials, or without a query, unchanged', () => {
    expect(redactUrlSecrets('/search?q=api_key')).toBe('/search?q=api_key');
    expect(redactUrlSecrets('/v2/scrape')).toBe('/v2/scrape');
  });

  it("rewrites an HTTP span's URL attributes, the stable url.query included", () => {
    const set: Record<string, unknown> = {};
    const span = { setAttribute: (k: string, v: unknown) => (set[k] = v) } as unknown as Span;
    redactSpanUrls(span, {
      'http.target': '/search?api_key=k&q=x',
      'url.query': 'api_key=k&q=x',
      'http.url': 'http://h/search?api_key=k',
    });
    expect(set).toEqual({
      'http.target': '/search?api_key=REDACTED&q=x',
      'url.query': 'api_key=REDACTED&q=x',
      'http.url': 'http://h/search?api_key=REDACTED',
    });
  });
});
