import { describe, expect, it } from '@jest/globals';
import type { RetailRecord } from '@trawl/contracts';
import { parseProductPage } from '@trawl/parsers';
import { asinOfProductPath, retailProductPage } from './retail.page.js';

const BASE = 'http://127.0.0.1:4010';
const ASINS = [
  'B0DBZPXJRH',
  'B07G2L3JMM',
  'B09V366BDY',
  'B0DR8G428S',
  'B00LAYVPOU',
  'B0TEST0001',
  'B0TEST0002',
  'B0TEST0003',
  '0143127748',
  'B0ZZZZZZZZ',
];

/** Fields of the record left null or empty. */
function emptyFields(record: RetailRecord): string[] {
  return Object.entries(record)
    .filter(
      ([, v]) =>
        v === null ||
        v === '' ||
        (Array.isArray(v) && v.length === 0) ||
        (typeof v === 'object' && v !== null && Object.keys(v).length === 0),
    )
    .map(([k]) => k);
}

describe('simulated Amazon product page', () => {
  it.each(ASINS)('the product parser reads every field of the page for %s', (asin) => {
    const url = `${BASE}/dp/${asin}`;
    const record = parseProductPage(retailProductPage(asin), { url });
    // A list price is shown on some items only.
    expect(emptyFields(record).filter((f) => f !== 'list_price')).toEqual([]);
    expect(record.asin).toBe(asin);
    expect(record.url).toBe(url);
    expect(record.variants.map((v) => v.asin)).toContain(asin);
    expect(record.variants.length).toBeGreaterThanOrEqual(2);
    expect(record.images.length).toBeGreaterThanOrEqual(4);
    expect(record.main_image).toBe(record.images[0]);
    expect(record.features).toHaveLength(5);
    expect(record.best_sellers_rank).toHaveLength(2);
    expect(record.date_first_available).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(record.rating).toBeGreaterThanOrEqual(3);
    expect(record.rating).toBeLessThanOrEqual(5);
    expect(record.reviews_count).toBeGreaterThan(0);
    expect(record.in_stock).toBe(true);
    expect(record.bought_past_month).toMatch(/^\d+K?\+$/);
    expect(record.specifications.Brand).toBe(record.brand);
    if (record.list_price) expect(record.list_price.value).toBeGreaterThan(record.price?.value ?? Infinity);
  });

  it('imitates amazon.ae (AED, en-AE dates) and amazon.com (USD) when asked, and both are read fully', () => {
    const ae = parseProductPage(retailProductPage('B0TEST0001', { store: 'ae' }), { url: `${BASE}/dp/B0TEST0001` });
    const com = parseProductPage(retailProductPage('B0TEST0001', { store: 'com' }), { url: `${BASE}/dp/B0TEST0001` });
    expect(ae.price?.currency).toBe('AED');
    expect(ae.price?.raw).toMatch(/^AED \d/);
    expect(com.price?.currency).toBe('USD');
    expect(com.price?.raw).toMatch(/^\$\d/);
    expect(ae.price?.value).toBe(com.price?.value);
    expect(ae.title).toBe(com.title);
  });

  it('chooses both stores across ASINs when no store is given', () => {
    const currencies = new Set(
      ASINS.map((a) => parseProductPage(retailProductPage(a), { url: `${BASE}/dp/${a}` }).price?.currency),
    );
    expect([...currencies].sort()).toEqual(['AED', 'USD']);
  });

  it('shows a list price above the price on some items and none on others', () => {
    const listPrices = ASINS.map((a) => parseProductPage(retailProductPage(a), { url: `${BASE}/dp/${a}` }).list_price);
    expect(listPrices.some((p) => p === null)).toBe(true);
    expect(listPrices.some((p) => p !== null)).toBe(true);
  });

  it('gives the same page for the same ASIN and a different product for another', () => {
    expect(retailProductPage('B0TEST0001')).toBe(retailProductPage('B0TEST0001'));
    const a = parseProductPage(retailProductPage('B0TEST0001'), { url: `${BASE}/dp/B0TEST0001` });
    const b = parseProductPage(retailProductPage('B0TEST0002'), { url: `${BASE}/dp/B0TEST0002` });
    expect(a.images[0]).not.toBe(b.images[0]);
    expect(`${a.title}|${a.price?.value}`).not.toBe(`${b.title}|${b.price?.value}`);
  });

  it('normalises an odd ASIN to ten letters and digits, so it cannot inject markup', () => {
    const html = retailProductPage('<b>x</b>"');
    expect(html).not.toContain('<b>x</b>');
    expect(parseProductPage(html, { url: `${BASE}/dp/BX00000000` }).asin).toMatch(/^[A-Z0-9]{10}$/);
  });
});

describe('asinOfProductPath', () => {
  it('reads the ASIN of /dp/, /<slug>/dp/ and /gp/product/ paths and nothing else', () => {
    expect(asinOfProductPath('/dp/B0DBZPXJRH')).toBe('B0DBZPXJRH');
    expect(asinOfProductPath('/JETech-Protector/dp/b0dbzpxjrh/ref=sr_1_1')).toBe('B0DBZPXJRH');
    expect(asinOfProductPath('/gp/product/B07G2L3JMM')).toBe('B07G2L3JMM');
    expect(asinOfProductPath('/s')).toBeUndefined();
    expect(asinOfProductPath('/dp/SHORT')).toBeUndefined();
  });
});
