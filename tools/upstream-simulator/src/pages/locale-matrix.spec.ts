// The locale matrix: every simulated upstream page (web search, maps place and search, product) rendered in each of
// the nine locales (the eight and ar-AE, right to left) and parsed back; every field is checked in every locale. The pages of a locale are generated
// from the same values as the en-US page (only words, number and date formats, currency and hours differ), so the
// en-US parse is the oracle, and the locale's own formats are checked against ICU.
import { describe, expect, it } from '@jest/globals';
import type { PlaceRecord, RetailRecord, WebSearchResult } from '@trawl/contracts';
import {
  buildMapsSearchUrl,
  buildSearchUrl,
  parseMapsSearch,
  parsePlacePage,
  parseProductPage,
  parseSearchPage,
} from '@trawl/parsers';
import { mapsPlacePage, mapsSearchRequestFromUrl, mapsSearchResponse, simulatedPlaceIds } from './maps.page.js';
import { retailProductPage } from './retail.page.js';
import { renderSearchPage, searchParamsFromUrl } from './search.page.js';
import { SIM_LOCALES, type SimLocale, weekdays } from './sim-locales.constants.js';

const BASE = 'http://127.0.0.1:4010';
const NON_EN = SIM_LOCALES.filter((l) => l.tag !== 'en-US');

function searchPage(q: string, l: SimLocale): WebSearchResult {
  return parseSearchPage(
    renderSearchPage(searchParamsFromUrl(new URL(buildSearchUrl(BASE, { q, hl: l.hl, gl: l.gl })))),
  );
}

describe.each(SIM_LOCALES.map((l) => [l.tag, l] as const))('locale matrix %s: web search', (_tag, l) => {
  // "coffee" has a knowledge panel in the simulator; every block of the page is present.
  const q =
    ['coffee', 'tea', 'jazz', 'chess', 'kayak', 'python', 'rust', 'violin', 'saturn', 'tango'].find(
      (x) => searchPage(x, SIM_LOCALES[0]).knowledgePanel,
    ) ?? 'coffee';
  const en = searchPage(q, SIM_LOCALES[0]);
  const page = searchPage(q, l);

  it("reads every organic field as the en-US page has it, and each date in the locale's own format", () => {
    expect(page.results).toHaveLength(en.results.length);
    page.results.forEach((r, i) => {
      const e = en.results[i];
      expect({ ...r, date: '' }).toEqual({ ...e, date: '' });
      expect(r.date !== '').toBe(e.date !== '');
      if (e.date) expect(new Date(`${e.date} UTC`).getUTCFullYear().toString()).toBe(/\d{4}/.exec(r.date)?.[0]);
    });
    expect(page.results.some((r) => r.date !== '')).toBe(true);
  });

  it('reads people also ask, related searches, the knowledge panel and the page language', () => {
    expect(page.peopleAlsoAsk).toEqual(en.peopleAlsoAsk);
    expect(page.peopleAlsoAsk.length).toBeGreaterThan(0);
    expect(page.relatedSearches).toEqual(en.relatedSearches);
    expect(page.knowledgePanel).toEqual(en.knowledgePanel);
    expect(page.knowledgePanel).not.toBeNull();
    expect(page.location.htmlLang).toBe(l.hl);
  });
});

describe.each(SIM_LOCALES.map((l) => [l.tag, l] as const))('locale matrix %s: maps', (_tag, l) => {
  const requestUrl = buildMapsSearchUrl(BASE, { q: 'coffee', ll: '@40.7128,-74.006,14z', hl: l.hl, gl: l.gl, num: 5 });
  const req = mapsSearchRequestFromUrl(new URL(requestUrl));
  const ids = simulatedPlaceIds(req);
  const placeUrl = (id: string) => `https://www.google.com/maps/place/?q=place_id:${id}&hl=${l.hl}`;
  const enRecord = (id: string): PlaceRecord => parsePlacePage(mapsPlacePage(id, 'en', 'us'), { url: placeUrl(id) });

  it('reads a place page (embedded payload and panel) with every field, words and hours in the locale', () => {
    for (const id of ids) {
      const r = parsePlacePage(mapsPlacePage(id, l.hl, l.gl), { url: placeUrl(id) });
      const e = enRecord(id);
      const localWords = ['mp_price_range', 'mp_price_range_dollar_sign', 'mp_hours', 'mp_reviews_url'] as const;
      const strip = (x: PlaceRecord) =>
        Object.fromEntries(Object.entries(x).filter(([k]) => !(localWords as readonly string[]).includes(k)));
      expect(strip(r)).toEqual(strip(e));
      expect(r.mp_price_range).toBe(l.maps.priceLevels[(e.mp_price_range_dollar_sign ?? '').length - 1]);
      expect(r.mp_price_range_dollar_sign).toBe(
        l.maps.currencySymbol.repeat((e.mp_price_range_dollar_sign ?? '').length),
      );
      expect(r.mp_hours.map((h) => h.day)).toEqual(weekdays(l.tag));
      expect(r.mp_hours.every((h) => h.times.length > 0)).toBe(true);
      expect(r.mp_reviews_url).toContain(`hl=${l.hl}`);
    }
  });

  it('reads the same place from the rendered panel alone (no embedded state): localized rating, count and labels', () => {
    for (const id of ids) {
      const html = mapsPlacePage(id, l.hl, l.gl).replace(
        /<script>window\.APP_INITIALIZATION_STATE[\s\S]*?<\/script>/,
        '',
      );
      const r = parsePlacePage(html, { url: placeUrl(id) });
      const e = enRecord(id);
      expect({
        name: r.mp_company_name,
        placeId: r.mp_place_id,
        latitude: r.latitude,
        longitude: r.longitude,
        rating: r.mp_rating,
        reviews: r.mp_reviews_count,
        address: r.mp_address,
        phone: r.mp_phone,
        website: r.mp_website,
        category: r.mp_category,
        city: r.mp_city,
        zip: r.mp_zip_code,
      }).toEqual({
        name: e.mp_company_name,
        placeId: e.mp_place_id,
        latitude: e.latitude,
        longitude: e.longitude,
        rating: e.mp_rating,
        reviews: e.mp_reviews_count,
        address: e.mp_address,
        phone: e.mp_phone,
        website: e.mp_website,
        category: [e.mp_category[0]],
        city: e.mp_city,
        zip: e.mp_zip_code,
      });
      expect(r.mp_price_range).toBe(l.maps.priceLevels[(e.mp_price_range_dollar_sign ?? '').length - 1]);
      expect(r.mp_hours.map((h) => h.day)).toEqual(weekdays(l.tag));
    }
  });

  it('reads a map search response with every place field', () => {
    const ctx = { q: 'coffee', hl: l.hl, gl: l.gl, ll: '@40.7128,-74.006,14z', requestUrl };
    const data = parseMapsSearch(mapsSearchResponse(req), ctx).organicResults;
    const enReq = mapsSearchRequestFromUrl(
      new URL(buildMapsSearchUrl(BASE, { q: 'coffee', ll: '@40.7128,-74.006,14z', hl: 'en', gl: 'us', num: 5 })),
    );
    const en = parseMapsSearch(mapsSearchResponse(enReq), ctx).organicResults;
    expect(data.map((p) => p.place_id)).toEqual(ids);
    data.forEach((p, i) => {
      const e = en[i];
      expect({ ...p, mp_hours: [], mp_reviews_url: '', mp_price_range_dollar_sign: '' }).toEqual({
        ...e,
        mp_hours: [],
        mp_reviews_url: '',
        mp_price_range_dollar_sign: '',
      });
      expect(p.mp_hours.map((h) => h.day)).toEqual(weekdays(l.tag));
      expect(p.mp_price_range_dollar_sign).toBe(l.maps.currencySymbol.repeat(e.mp_price_range_dollar_sign.length));
    });
  });
});

describe('locale matrix: product pages', () => {
  const ASINS = ['B0DBZPXJRH', 'B09V366BDY', 'B0TEST0001', 'B0TEST0002', 'B0TEST0003'];
  const url = (l: SimLocale, asin: string) => `https://${l.retail.host}/dp/${asin}`;
  const enOf = (asin: string): RetailRecord =>
    parseProductPage(retailProductPage(asin, { locale: 'en-US' }), { url: url(SIM_LOCALES[0], asin) });

  it.each(NON_EN.map((l) => [l.tag, l] as const))(
    '%s: every field as the en-US page has it, prices and words in the locale',
    (_tag, l) => {
      for (const asin of ASINS) {
        const html = retailProductPage(asin, { locale: l.tag });
        const p = parseProductPage(html, { url: url(l, asin) });
        const e = enOf(asin);
        const scale = l.retail.currency === 'JPY' ? 150 : l.retail.currency === 'INR' ? 80 : 1;
        const expectedPrice =
          l.retail.currency === 'JPY'
            ? Math.round((e.price?.value ?? 0) * scale)
            : Math.round((e.price?.value ?? 0) * scale * 100) / 100;
        expect(p.price).toMatchObject({ value: expectedPrice, currency: l.retail.currency });
        expect(p.list_price === null).toBe(e.list_price === null);
        if (p.list_price) expect(p.list_price.currency).toBe(l.retail.currency);
        expect(p.url).toBe(url(l, asin));
        const same: (keyof RetailRecord)[] = [
          'asin',
          'title',
          'brand',
          'rating',
          'reviews_count',
          'main_image',
          'images',
          'features',
          'description',
          'categories',
          'best_sellers_rank',
          'seller',
          'date_first_available',
          'variants',
          'in_stock',
        ];
        for (const k of same) expect([k, p[k]]).toEqual([k, e[k]]);
        expect(p.availability).toBe(l.retail.inStock);
        expect(p.bought_past_month).toBe(e.bought_past_month);
        expect(Object.keys(p.specifications).length).toBeGreaterThanOrEqual(Object.keys(e.specifications).length - 1);
      }
    },
  );

  it('en-US (the oracle) has every field filled', () => {
    for (const asin of ASINS) {
      const e = enOf(asin);
      expect(e.rating).not.toBeNull();
      expect(e.reviews_count).toBeGreaterThan(0);
      expect(e.best_sellers_rank).toHaveLength(2);
      expect(e.date_first_available).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(e.price?.currency).toBe('USD');
    }
  });
});
