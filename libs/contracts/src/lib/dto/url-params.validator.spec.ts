import { describe, expect, it } from '@jest/globals';
import { appendUrlParams } from './url-params.validator.js';

describe('appendUrlParams', () => {
  it("keeps the URL's own query as it was sent and appends the params after it", () => {
    const url = 'https://shop.example/p?q=caf%C3%A9+noir&tag=a%2Cb&empty=&flag';
    expect(appendUrlParams(url, { hl: 'es', gl: 'mx' })).toBe(`${url}&hl=es&gl=mx`);
  });

  it('appends a parameter the URL already has instead of replacing it', () => {
    expect(appendUrlParams('https://a.example/s?hl=en', { hl: 'fr' })).toBe('https://a.example/s?hl=en&hl=fr');
  });

  it('starts a query when there is none, keeps the fragment last, and encodes only what it appends', () => {
    expect(appendUrlParams('https://a.example/s#top', { q: 'a b&c', n: 2, x: true })).toBe(
      'https://a.example/s?q=a+b%26c&n=2&x=true#top',
    );
    expect(appendUrlParams('https://a.example/s?', { q: 1 })).toBe('https://a.example/s?q=1');
    expect(appendUrlParams('https://a.example/s?a=1&', { q: 1 })).toBe('https://a.example/s?a=1&q=1');
  });

  it('returns the URL untouched without params', () => {
    const url = 'https://a.example/s?q=%7E';
    expect(appendUrlParams(url, undefined)).toBe(url);
    expect(appendUrlParams(url, {})).toBe(url);
  });
});
