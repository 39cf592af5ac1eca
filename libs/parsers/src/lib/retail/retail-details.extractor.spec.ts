import { describe, expect, it } from '@jest/globals';
import { parseBestSellersRank, toIsoDate } from './retail-details.extractor.js';

describe('parseBestSellersRank', () => {
  it('reads each "#rank in category" and skips the "See Top 100" links', () => {
    expect(parseBestSellersRank('#16,222 in Kitchen (See Top 100 in Kitchen) #24 in Centrifugal Juicers')).toEqual([
      { category: 'Kitchen', rank: 16222 },
      { category: 'Centrifugal Juicers', rank: 24 },
    ]);
  });

  it('reads the German "Nr. 1.234 in …" form', () => {
    expect(parseBestSellersRank('Nr. 1.234 in Küche (Siehe Top 100 in Küche) Nr. 5 in Entsafter')).toEqual([
      { category: 'Küche', rank: 1234 },
      { category: 'Entsafter', rank: 5 },
    ]);
  });

  it('answers [] for text without ranks', () => {
    expect(parseBestSellersRank('')).toEqual([]);
  });
});

describe('toIsoDate', () => {
  it.each([
    ['6 August 2024', '2024-08-06'],
    ['April 30, 2022', '2022-04-30'],
    ['12. März 2021', '2021-03-12'],
    ['3 juillet 2020', '2020-07-03'],
    ['15 de enero de 2019', '2019-01-15'],
    ['2024-08-06', '2024-08-06'],
  ])('reads %s as %s', (text, iso) => {
    expect(toIsoDate(text)).toBe(iso);
  });

  it('answers undefined for text that is not a date', () => {
    expect(toIsoDate('soon')).toBeUndefined();
  });
});
