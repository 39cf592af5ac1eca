import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { TrawlError } from '@trawl/contracts';
import { parseMapsSearch } from './maps-search.parser.js';

const fixture = (name: string): string => readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8');
const ctx = {
  q: 'tacos',
  hl: 'en',
  gl: 'us',
  ll: '@30.27,-97.74,14z',
  requestUrl: 'https://www.google.com/search?tbm=map&hl=en&gl=us&q=tacos',
  now: new Date(Date.UTC(2026, 0, 5, 9, 7, 3)),
};

function thrownBy(fn: () => unknown): TrawlError | undefined {
  try {
    fn();
  } catch (e) {
    return e instanceof TrawlError ? e : undefined;
  }
  return undefined;
}

describe('parseMapsSearch on the search endpoint JSON', () => {
  const data = parseMapsSearch(fixture('search-response.json'), ctx);

  it('returns one place item per entry, in order', () => {
    expect(data.organicResults.map((r) => r.name)).toEqual(['Elm Street Tacos', 'Taco Truck Libre']);
  });

  it('fills every place-item field from the entry’s place array', () => {
    expect(data.organicResults[0]).toEqual({
      name: 'Elm Street Tacos',
      place_id: 'ChIJtestDiner000000000001',
      cid: '123456',
      country: 'US',
      state: 'TX',
      city: 'Austin',
      borough: 'Downtown',
      postal_code: '78701',
      address: '410 Elm St, Austin, TX 78701',
      street_addr: '410 Elm St',
      street_addr_supplement: '',
      latitude: 30.2675,
      longitude: -97.7399,
      claimed: true,
      rating: 4.6,
      number_of_reviews: 88,
      website: 'https://elmstreettacos.example/',
      mp_phone: '(512) 555-0142',
      mp_category: ['Taco restaurant'],
      mp_description: '',
      mp_image: '',
      mp_maps_url:
        'https://www.google.com/maps/place/Elm%20Street%20Tacos/data=!4m2!3m1!1s0x8644b5a1c0ffee01:0x000000000001e240'.replace(
          /%20/g,
          '+',
        ),
      mp_reviews_url: 'https://search.google.com/local/reviews?placeid=ChIJtestDiner000000000001&q=tacos&hl=en',
      mp_price_range_dollar_sign: '$',
      mp_orders_urls: [],
      order_online_url: null,
      mp_hours: [
        { day: 'Monday', times: ['8 AM–9 PM'] },
        { day: 'Tuesday', times: ['8 AM–9 PM'] },
        { day: 'Wednesday', times: ['8 AM–9 PM'] },
        { day: 'Thursday', times: ['8 AM–9 PM'] },
        { day: 'Friday', times: ['8 AM–11 PM'] },
        { day: 'Saturday', times: ['9 AM–11 PM'] },
        { day: 'Sunday', times: ['Closed'] },
      ],
      about: JSON.stringify([
        { id: 'highlights', name: 'Highlights', options: [{ name: 'Late-night food', enabled: true }] },
      ]),
    });
  });

  it('splits the one-line address when the entry has no address parts, and leaves absent fields empty', () => {
    const truck = data.organicResults[1];
    expect(truck).toMatchObject({
      address: '88 River St, Austin, TX 78704',
      street_addr: '88 River St',
      city: 'Austin',
      state: 'TX',
      postal_code: '78704',
      country: 'US',
      mp_phone: null,
      website: '',
      about: '[]',
      mp_reviews_url: 'https://search.google.com/local/reviews?placeid=ChIJtestTruck000000000002',
    });
  });

  it('echoes the search parameters and stamps the metadata', () => {
    expect(data.searchParameters).toEqual({
      engine: 'mp_maps',
      q: 'tacos',
      device: 'desktop',
      mp_domain: 'google.com',
      hl: 'en',
      gl: 'us',
      type: 'search',
      zoom: '14',
      latitude: 30.27,
      longitude: -97.74,
    });
    expect(data.search_metadata).toMatchObject({
      status: 'Success',
      created_at: '2026-01-05 09:07:03',
      requestUrl: ctx.requestUrl,
      jsonUrl: null,
      htmlUrl: null,
    });
    expect(data.search_metadata.id).toMatch(/^[0-9a-f]{24}$/);
  });

  it('reads the older {"c":0,"d":")]}\'…"} wrapper and gives no results when nothing matched', () => {
    const empty = parseMapsSearch(fixture('search-wrapped-empty.json'), { ...ctx, q: 'qwxzqv', ll: undefined });
    expect(empty.organicResults).toEqual([]);
    expect(empty.searchParameters.latitude).toBeNull();
  });
});

describe('parseMapsSearch on a rendered search page', () => {
  const data = parseMapsSearch(fixture('search-list.html'), { ...ctx, q: 'bookshops' });
  const [shop, stop] = data.organicResults;

  it('reads each result card: ids and coordinates from its place link, the rest from its rows', () => {
    expect(data.organicResults).toHaveLength(2);
    expect(shop).toMatchObject({
      name: 'Paper Lantern Books',
      place_id: 'ChIJtestBooks0000000000001',
      cid: '41394',
      latitude: 40.7411,
      longitude: -73.9897,
      rating: 4.7,
      number_of_reviews: 1204,
      mp_category: ['Book store'],
      address: '12 W 23rd St',
      street_addr: '12 W 23rd St',
      mp_description: 'Independent shop with a reading room',
      mp_phone: '(212) 555-0123',
      mp_price_range_dollar_sign: '$$',
      website: 'https://paperlantern.example/',
      mp_image: 'https://lh3.googleusercontent.com/p/AF1QipBooks=w122-h92-k-no',
      mp_reviews_url: 'https://search.google.com/local/reviews?placeid=ChIJtestBooks0000000000001',
    });
    expect(shop.mp_maps_url).toContain('/maps/place/Paper+Lantern+Books/');
  });

  it('keeps a card that shows only a category, with no address', () => {
    expect(stop).toMatchObject({ name: 'W 23 St & 6 Av', mp_category: ['Bus stop'], address: '', rating: null });
  });
});

describe('parseMapsSearch refusals', () => {
  it('reports a captcha page as UPSTREAM_BLOCKED (retryable)', () => {
    const err = thrownBy(() => parseMapsSearch(fixture('captcha.html'), ctx));
    expect(err?.code).toBe('UPSTREAM_BLOCKED');
    expect(err?.retryable).toBe(true);
  });

  it('reports a consent interstitial as UPSTREAM_BLOCKED', () => {
    expect(thrownBy(() => parseMapsSearch(fixture('consent.html'), ctx))?.code).toBe('UPSTREAM_BLOCKED');
  });

  it('reports a page of another site as PAGE_NOT_RECOGNISED', () => {
    expect(thrownBy(() => parseMapsSearch(fixture('not-maps.html'), ctx))?.code).toBe('PAGE_NOT_RECOGNISED');
  });

  it('reports JSON that is not a maps response as PAGE_NOT_RECOGNISED', () => {
    expect(thrownBy(() => parseMapsSearch('{"hello":"world"}', ctx))?.code).toBe('PAGE_NOT_RECOGNISED');
  });

  it('answers a single-match query that opened a place page with that one place', () => {
    const data = parseMapsSearch(fixture('place-embedded.html'), ctx);
    expect(data.organicResults.map((r) => r.name)).toEqual(['Meze House']);
  });
});

describe('searchParameters.gl of a maps search', () => {
  const json = fixture('search-response.json');
  it('echoes the gl asked for, else the gl of the page URL (an mp-search URL carrying one)', () => {
    expect(parseMapsSearch(json, ctx).searchParameters.gl).toBe('us');
    const { gl: _asked, ...withoutGl } = ctx;
    const fromUrl = { ...withoutGl, requestUrl: 'https://www.google.com/maps/search/tacos?hl=es&gl=MX' };
    expect(parseMapsSearch(json, fromUrl).searchParameters.gl).toBe('mx');
  });

  it('is empty when nothing asked for a country: POST /extract/search/maps takes no gl (docs/results.md)', () => {
    const { gl: _asked, ...withoutGl } = ctx;
    const bare = { ...withoutGl, requestUrl: 'https://www.google.com/maps/search/tacos?hl=en' };
    expect(parseMapsSearch(json, bare).searchParameters.gl).toBe('');
  });
});
