// Product pages of non-English stores: localized labels and numbers (amazon.fr).
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { parseBestSellersRank } from './retail-details.extractor.js';
import { parseProductPage } from './retail-page.parser.js';

const fixture = (name: string): string => readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8');

describe('a French product page', () => {
  const p = parseProductPage(fixture('product-fr-localized.html'), { url: 'https://www.amazon.fr/dp/B0FRTEST01' });

  it('reads the best-sellers rank under "Classement des meilleures ventes d\'Amazon" (no "#", narrow no-break groups)', () => {
    expect(p.best_sellers_rank).toEqual([
      { category: 'Cuisine et Maison', rank: 5842 },
      { category: 'Bouilloires électriques', rank: 12 },
    ]);
  });

  it('reads the rating, the review count, the price and the date first available', () => {
    expect(p.rating).toBe(4.5);
    expect(p.reviews_count).toBe(12345);
    expect(p.price).toMatchObject({ value: 29.99, currency: 'EUR' });
    expect(p.date_first_available).toBe('2021-03-12');
    expect(p.specifications['Fabricant']).toBe('Nordvik');
    expect(p.specifications).not.toHaveProperty('Moyenne des commentaires client');
  });
});

describe('parseBestSellersRank in other store languages', () => {
  it.each([
    ['5\u202f842 en Cuisine et Maison (Voir les 100 premiers en Cuisine et Maison) 12 en Bouilloires', [5842, 12]],
    ['n.º 1.234 en Hogar y cocina (Ver el Top 100 en Hogar y cocina) n.º 7 en Hervidores', [1234, 7]],
    ['nº 2.345 em Cozinha (Conheça o Top 100 em Cozinha) nº 8 em Chaleiras', [2345, 8]],
    ['- 1,234位ホーム&キッチン (の売れ筋ランキングを見るホーム&キッチン) - 5位電気ケトル', [1234, 5]],
    ['#1,23,456 in Home & Kitchen (See Top 100 in Home & Kitchen) #9 in Kettles', [123456, 9]],
    ['رقم 1,234 في المطبخ (Top 100 المطبخ) رقم 12 في الغلايات', [1234, 12]],
  ])('reads %s', (text, ranks) => {
    expect(parseBestSellersRank(text).map((r) => r.rank)).toEqual(ranks);
  });
});
