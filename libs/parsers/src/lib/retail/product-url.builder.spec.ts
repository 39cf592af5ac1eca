import { describe, expect, it } from '@jest/globals';
import { asinFromUrl, buildProductUrl } from './product-url.builder.js';

describe('buildProductUrl', () => {
  it('builds the /dp/ URL on the store from an ASIN', () => {
    expect(buildProductUrl('https://www.amazon.ae', 'B0DBZPXJRH')).toBe('https://www.amazon.ae/dp/B0DBZPXJRH');
    expect(buildProductUrl('http://127.0.0.1:8099/', 'b0dbzpxjrh')).toBe('http://127.0.0.1:8099/dp/B0DBZPXJRH');
  });

  it('reduces a product URL (slug, /gp/product/, query) to the same form on the base', () => {
    expect(
      buildProductUrl('https://www.amazon.com', 'https://www.amazon.com/Some-Slug/dp/B07G2L3JMM/ref=sr_1_1?th=1'),
    ).toBe('https://www.amazon.com/dp/B07G2L3JMM');
    expect(buildProductUrl('http://localhost:9000', 'https://www.amazon.com/gp/product/B07G2L3JMM')).toBe(
      'http://localhost:9000/dp/B07G2L3JMM',
    );
  });

  it('throws for input that is neither an ASIN nor a product URL', () => {
    expect(() => buildProductUrl('https://www.amazon.com', 'https://www.amazon.com/s?k=lamp')).toThrow(/not an ASIN/);
  });
});

describe('asinFromUrl', () => {
  it('finds the ASIN in /dp/ and /gp/product/ URLs, not elsewhere', () => {
    expect(asinFromUrl('https://www.amazon.ae/JETech/dp/B0DBZPXJRH')).toBe('B0DBZPXJRH');
    expect(asinFromUrl('/gp/product/B07G2L3JMM?psc=1')).toBe('B07G2L3JMM');
    expect(asinFromUrl('https://www.amazon.com/s?k=B07G2L3JMM')).toBeUndefined();
    expect(asinFromUrl(undefined)).toBeUndefined();
  });
});
