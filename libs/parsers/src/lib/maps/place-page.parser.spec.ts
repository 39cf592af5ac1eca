import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { TrawlError } from '@trawl/contracts';
import { parsePlacePage } from './place-page.parser.js';

const fixture = (name: string): string => readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8');
const url = 'https://www.google.com/maps/place/x';

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    return e instanceof TrawlError ? e.code : 'not a TrawlError';
  }
  return undefined;
}

describe('parsePlacePage on the embedded place payload', () => {
  const record = parsePlacePage(fixture('place-payload.json'), { url });

  it('fills every mp_* field the payload carries', () => {
    expect(record).toEqual({
      about: JSON.stringify([
        {
          id: 'service_options',
          name: 'Service options',
          options: [
            { name: 'Dine-in', enabled: true },
            { name: 'Delivery', enabled: false },
          ],
        },
        { id: 'payments', name: 'Payments', options: [{ name: 'Credit cards', enabled: true }] },
      ]),
      cid: '1234',
      ctx_city: 'Larnaca',
      ctx_country: 'CY',
      ctx_state: '',
      mp_address: 'Harbour Rd 7, Larnaca 6023',
      mp_category: ['Greek restaurant', 'Seafood restaurant'],
      mp_city: 'Larnaca',
      mp_claimed: false,
      mp_company_name: 'Meze House',
      mp_country_name: 'Cyprus',
      mp_description: 'Seafront meze since 1982',
      mp_hours: [
        { day: 'Monday', times: ['Closed'] },
        { day: 'Tuesday', times: ['12–11 pm'] },
        { day: 'Wednesday', times: ['12–11 pm'] },
        { day: 'Thursday', times: ['12–11 pm'] },
        { day: 'Friday', times: ['12 pm–12 am'] },
        { day: 'Saturday', times: ['12 pm–12 am'] },
        { day: 'Sunday', times: ['12–6 pm', '7–11 pm'] },
      ],
      mp_image: 'https://lh5.googleusercontent.com/p/AF1QipTaverna=w408-h306-k-no',
      mp_maps_url:
        'https://www.google.com/maps/place/Meze+House/data=!4m2!3m1!1s0x14e08262a1b2c3d4:0x00000000000004d2!10m1!1e1',
      mp_menu_and_appointment_urls: ['https://book.example/meze-house'],
      mp_orders_urls: ['https://deliver.example/meze-house'],
      mp_permanently_closed: false,
      mp_phone: '24 123456',
      mp_place_id: 'ChIJtestTaverna0000000001',
      mp_price_range: 'Moderately expensive',
      mp_price_range_dollar_sign: '€€',
      mp_rating: 4.4,
      mp_reviews_count: 212,
      mp_reviews_url: 'https://search.google.com/local/reviews?placeid=ChIJtestTaverna0000000001&q=Meze+House&hl=en',
      mp_state_abbr: '',
      mp_state_name: '',
      mp_street_address: 'Harbour Rd 7',
      mp_temporarily_closed: true,
      mp_website: 'https://mezehouse.example.cy/',
      mp_zip_code: '6023',
      latitude: 34.9125,
      longitude: 33.6389,
      optional_popular_times: null,
      optional_questions_and_answers: null,
      optional_review_summary: null,
    });
  });

  it('reads the same place from the payload embedded in a page’s APP_INITIALIZATION_STATE', () => {
    expect(parsePlacePage(fixture('place-embedded.html'), { url })).toEqual(record);
  });
});

describe('parsePlacePage on a rendered place page with only a short embedded record', () => {
  const record = parsePlacePage(fixture('place-rendered.html'), { url });

  it('takes ids and coordinates from the short record and the rest from the side panel', () => {
    expect(record).toMatchObject({
      cid: '123456789',
      mp_place_id: 'ChIJtestPlanetarium000001',
      latitude: 41.8663,
      longitude: -87.6069,
      mp_company_name: 'Lakeside Planetarium',
      mp_rating: 4.6,
      mp_reviews_count: 2315,
      mp_category: ['Planetarium'],
      mp_price_range_dollar_sign: '$$',
      mp_price_range: 'Moderate',
      mp_description: 'Domed theatre with star shows and a public observatory deck.',
      mp_address: '1300 S Lake Shore Dr, Chicago, IL 60605',
      mp_street_address: '1300 S Lake Shore Dr',
      mp_city: 'Chicago',
      mp_zip_code: '60605',
      mp_state_abbr: 'IL',
      mp_state_name: 'Illinois',
      ctx_country: 'US',
      mp_country_name: 'United States',
      mp_phone: '(312) 555-0199',
      mp_website: 'https://lakesideplanetarium.example/',
      mp_menu_and_appointment_urls: ['https://lakesideplanetarium.example/shows'],
      mp_image: 'https://lh3.googleusercontent.com/gps-cs-s/AHVAweLakeside=w408-h342-k-no',
      mp_claimed: true,
      mp_reviews_url: 'https://search.google.com/local/reviews?placeid=ChIJtestPlanetarium000001',
      about: '[]',
    });
  });

  it('reads the hours table in page order, with split shifts', () => {
    expect(record.mp_hours).toHaveLength(7);
    expect(record.mp_hours[0]).toEqual({ day: 'Friday', times: ['9:30 AM–4 PM'] });
    expect(record.mp_hours[6]).toEqual({ day: 'Thursday', times: ['9:30 AM–4 PM', '6–10 PM'] });
  });

  it('builds the maps URL from the feature id', () => {
    expect(record.mp_maps_url).toBe(
      'https://www.google.com/maps/place/Lakeside+Planetarium/data=!4m2!3m1!1s0x880e2b7d4ad1f0c1:0x00000000075bcd15',
    );
  });
});

describe('parsePlacePage refusals', () => {
  it('reports captcha and consent pages as UPSTREAM_BLOCKED', () => {
    expect(codeOf(() => parsePlacePage(fixture('captcha.html'), { url }))).toBe('UPSTREAM_BLOCKED');
    expect(codeOf(() => parsePlacePage(fixture('consent.html'), { url }))).toBe('UPSTREAM_BLOCKED');
  });

  it('reports a page of another site, a search list and a search response as PAGE_NOT_RECOGNISED', () => {
    expect(codeOf(() => parsePlacePage(fixture('not-maps.html'), { url }))).toBe('PAGE_NOT_RECOGNISED');
    expect(codeOf(() => parsePlacePage(fixture('search-list.html'), { url }))).toBe('PAGE_NOT_RECOGNISED');
    expect(codeOf(() => parsePlacePage(fixture('search-wrapped-empty.json'), { url }))).toBe('PAGE_NOT_RECOGNISED');
  });
});
