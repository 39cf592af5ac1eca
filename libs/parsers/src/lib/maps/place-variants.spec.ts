// Layout and locale variants of place pages that real 2025-2026 pages showed and the parser used to miss.
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { readAbout } from './place-data.reader.js';
import { parseMapsSearch } from './maps-search.parser.js';
import { parsePlacePage } from './place-page.parser.js';

const fixture = (name: string): string => readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8');

/** A minimal place array (the indices the live payload uses) for a state document. */
function placeArray(name: string, dataId: string, lat: number, lng: number, placeId: string): unknown[] {
  const a: unknown[] = new Array(80).fill(null);
  a[9] = [null, null, lat, lng];
  a[10] = dataId;
  a[11] = name;
  a[78] = placeId;
  return a;
}

describe('place pages in other locales (rendered panel, no embedded payload)', () => {
  it('reads a decimal-comma rating and a count grouped with a narrow no-break space next to local words', () => {
    const r = parsePlacePage(fixture('place-rendered-fr.html'), {
      url: 'https://www.google.com/maps/place/Caf%C3%A9+des+Arts',
    });
    expect(r.mp_company_name).toBe('Café des Arts');
    expect(r.mp_rating).toBe(4.6);
    expect(r.mp_reviews_count).toBe(3412);
    expect(r.mp_price_range_dollar_sign).toBe('€€');
    expect(r.mp_price_range).toBe('Modéré');
  });
});

describe('a rendered results list in another locale', () => {
  it("reads each card's decimal-comma rating and dot-grouped review count next to local words", () => {
    // The list of the panel fixture without its panel: a plain German results page.
    const html = fixture('place-panel-over-list.html').replace(
      /<div role="main" aria-label="Bohnenglück"[\s\S]*?<\/div>\n<script>/,
      '<script>',
    );
    const places = parseMapsSearch(html, {
      q: 'Kaffee',
      hl: 'de',
      requestUrl: 'https://www.google.com/maps/search/Kaffee',
    }).organicResults;
    expect(places.map((p) => [p.name, p.rating, p.number_of_reviews, p.place_id])).toEqual([
      ['Röstwerk Mitte', 4.3, 812, 'ChIJAAAAAAAAAAAAAAAAAAAAAA'],
      ['Bohnenglück', 4.5, 1234, 'ChIJBBBBBBBBBBBBBBBBBBBBBB'],
    ]);
  });
});

describe('a place opened as a panel on top of a results list', () => {
  const url = 'https://www.google.com/maps/search/Kaffee/@52.52,13.40,14z?hl=de';

  it('reads the panel (name, place id, coordinates, rating, reviews), not the list heading', () => {
    const r = parsePlacePage(fixture('place-panel-over-list.html'), { url });
    expect(r.mp_company_name).toBe('Bohnenglück');
    expect(r.mp_place_id).toBe('ChIJBBBBBBBBBBBBBBBBBBBBBB');
    expect(r.cid).toBe(BigInt('0x2222222222222222').toString());
    expect(r.latitude).toBe(52.5212);
    expect(r.longitude).toBe(13.4101);
    expect(r.mp_rating).toBe(4.5);
    expect(r.mp_reviews_count).toBe(1234);
    expect(r.mp_address).toBe('Torstraße 5, 10119 Berlin');
  });

  it('takes the embedded place array named like the panel, not the first one the list state holds', () => {
    const state = JSON.stringify([
      null,
      [
        placeArray(
          'Röstwerk Mitte',
          '0x47a851e0b2a4d1a1:0x1111111111111111',
          52.5301,
          13.4012,
          'ChIJAAAAAAAAAAAAAAAAAAAAAA',
        ),
        placeArray(
          'Bohnenglück',
          '0x47a851e0b2a4d1a2:0x2222222222222222',
          52.5212,
          13.4101,
          'ChIJBBBBBBBBBBBBBBBBBBBBBB',
        ),
      ],
    ]);
    const html = fixture('place-panel-over-list.html').replace(
      /window\.APP_INITIALIZATION_STATE=[^;]*;/,
      `window.APP_INITIALIZATION_STATE=${state};`,
    );
    const r = parsePlacePage(html, { url });
    expect(r.mp_company_name).toBe('Bohnenglück');
    expect(r.mp_place_id).toBe('ChIJBBBBBBBBBBBBBBBBBBBBBB');
    expect([r.latitude, r.longitude]).toEqual([52.5212, 13.4101]);
  });
});

describe('accepted payment types in about', () => {
  it('keeps the values of a list-valued option (card types accepted) and marks it enabled', () => {
    // The shape of 2023+ payloads: flag 3 and the accepted types as entities under [2][4].
    const about = readAbout([
      null,
      [
        [
          'payments',
          'Payments',
          [
            ['/geo/type/establishment_poi/pay_debit_card', 'Debit cards', [1, [[1, 'Debit cards']]], null, [1], 0],
            [
              '/geo/type/establishment_poi/pay_credit_card_types_accepted',
              'Credit cards',
              [
                3,
                null,
                null,
                null,
                [
                  null,
                  [
                    [
                      [
                        ['/g/11g9h0tjcp', null, 'Mastercard', 'Mastercard'],
                        ['/g/11visa', null, 'Visa', 'Visa'],
                      ],
                      null,
                      [1],
                    ],
                  ],
                ],
              ],
              null,
              [1],
              0,
            ],
          ],
        ],
      ],
    ]);
    expect(about).toEqual([
      {
        id: 'payments',
        name: 'Payments',
        options: [
          { name: 'Debit cards', enabled: true },
          { name: 'Credit cards', enabled: true, values: ['Mastercard', 'Visa'] },
        ],
      },
    ]);
  });
});
