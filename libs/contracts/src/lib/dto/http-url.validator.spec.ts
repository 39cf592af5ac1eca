import { describe, expect, it } from '@jest/globals';
import { isURL } from 'class-validator';
import { LIMITS } from '../limits.constants.js';
import { isHttpUrl } from './http-url.validator.js';

/** The rule isHttpUrl had before its fast path: validator's isURL alone. */
const reference = (value: string): boolean =>
  value.length <= LIMITS.maxUrlLength &&
  isURL(value, { protocols: ['http', 'https'], require_protocol: true, require_tld: false, allow_underscores: true });

const TRICKY = [
  'https://example.com/',
  'http://127.0.0.1:8080/a',
  'http://localhost',
  'http://localhost:0/',
  'http://localhost:65535/',
  'http://localhost:65536/',
  'http://localhost:0080/',
  'http://a.com:',
  'http://a.com:/x',
  'http://_.com/',
  'http://a_b.example/',
  'http://-a.example/',
  'http://a-.example/',
  'http://a..b/',
  'http://.a.b/',
  'http://a.b./',
  'http://1.2.3.4.5/',
  'http://256.1.1.1/',
  'http://01.2.3.4/',
  'http://123/',
  'http://a.123/',
  'http://123.a/',
  'http://[::1]:8080/',
  'http://user:pass@a.com/',
  'http://@a.com/',
  'http://a.com/x@y',
  'http://a.com?x=1#y',
  'http://a.com#/@evil',
  'http://a.com/ space',
  'http://a.com/<x>',
  'http://a.com\\evil',
  'HTTP://A.COM/',
  'ftp://a.com/',
  'mailto:a@b.com',
  '//a.com/',
  'a.com',
  'http:/a.com',
  'http://',
  'http:// a.com',
  `http://${'a'.repeat(63)}.com/`,
  `http://${'a'.repeat(64)}.com/`,
  `http://a.com/${'x'.repeat(2070)}`,
  `http://a.com/${'x'.repeat(2071)}`,
  `http://a.com/${'x'.repeat(4090)}`,
  'http://bücher.example/',
  'http://ｅxample.com/',
  'https://www.example-shop.com/products/item-1/details?color=red&size=4',
];

/** Deterministic pseudo-random URLs near the rule's edges (a fixed LCG seed: the same corpus every run). */
function corpus(count: number): string[] {
  let seed = 12345;
  const next = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
  const pick = (xs: readonly string[]) => xs[next(xs.length)];
  const run = (xs: readonly string[], max: number) => Array.from({ length: next(max + 1) }, () => pick(xs)).join('');
  const schemes = ['http://', 'https://', 'http://', 'https://', 'HTTP://', 'ftp://', 'http:/', ''];
  const hostChars = ['a', 'a', 'Z', '0', '9', '_', '-', 'a', '0', 'é', '@', ' ', ':', '['];
  const ports = ['', '0', '1', '80', '080', '65535', '65536', '99999', '8a'];
  const tailChars = ['a', '/', '@', '?', '#', ' ', '<', '%', '.', ':', '\\'];
  return Array.from({ length: count }, () => {
    const host = Array.from({ length: 1 + next(4) }, () => run(hostChars, 5)).join('.');
    const port = next(3) === 0 ? `:${pick(ports)}` : '';
    const tail = next(2) === 0 ? pick(['/', '?', '#', '\\']) + run(tailChars, 5) : '';
    return `${pick(schemes)}${host}${port}${tail}`;
  });
}

describe('isHttpUrl', () => {
  it('accepts exactly what validator isURL accepts, on hand-picked edge cases', () => {
    for (const url of TRICKY) expect([url, isHttpUrl(url)]).toEqual([url, reference(url)]);
  });

  it('accepts exactly what validator isURL accepts, on 50,000 generated strings', () => {
    const differ = corpus(50_000).filter((url) => isHttpUrl(url) !== reference(url));
    expect(differ).toEqual([]);
  });

  it('refuses what is not a string', () => {
    for (const v of [undefined, null, 1, {}, ['http://a.com/']]) expect(isHttpUrl(v)).toBe(false);
  });
});
