import { describe, expect, it } from '@jest/globals';
import { buildMapsSearchUrl, parseMapsSearch, parsePlacePage } from '@trawl/parsers';
import {
  mapsPlacePage,
  mapsSearchRequestFromUrl,
  mapsSearchResponse,
  SIM_MAPS_MAX_RESULTS,
  simulatedPlaceIds,
} from './maps.page.js';

const BASE = 'http://127.0.0.1:4010';
const LL = '@40.7128,-74.006,14z';

function search(q: string, num: number, start = 0) {
  const requestUrl = buildMapsSearchUrl(BASE, { q, ll: LL, hl: 'en', gl: 'us', num, start });
  const req = mapsSearchRequestFromUrl(new URL(requestUrl));
  return { req, requestUrl, body: mapsSearchResponse(req) };
}

/** Keys whose value is empty ('' / [] / null / 0 / '[]'), i.e. not populated. */
function emptyKeys(record: object, allowed: string[] = []): string[] {
  return Object.entries(record)
    .filter(([k]) => !allowed.includes(k))
    .filter(([, v]) => v === '' || v === null || v === 0 || v === '[]' || (Array.isArray(v) && v.length === 0))
    .map(([k]) => k);
}

describe('simulated maps upstream', () => {
  it('reads q, num, start and the viewport back from the URL the extractor builds', () => {
    const { req } = search('coffee', 35, 20);
    expect(req).toMatchObject({ q: 'coffee', hl: 'en', gl: 'us', num: 35, start: 20 });
    expect(req.latitude).toBeCloseTo(40.7128, 4);
    expect(req.longitude).toBeCloseTo(-74.006, 4);
  });

  it('answers a search with num places that the maps search parser reads with every field populated', () => {
    const { body, requestUrl } = search('coffee near me', 25);
    expect(body.startsWith(")]}'\n")).toBe(true);
    const data = parseMapsSearch(body, { q: 'coffee near me', hl: 'en', gl: 'us', ll: LL, requestUrl });
    expect(data.organicResults).toHaveLength(25);
    for (const item of data.organicResults) {
      expect(emptyKeys(item)).toEqual([]);
      expect(JSON.parse(item.about)).toEqual(
        expect.arrayContaining([expect.objectContaining({ id: 'service_options', options: expect.any(Array) })]),
      );
      expect(Math.abs((item.latitude ?? Number.NaN) - 40.7128)).toBeLessThan(0.1);
      expect(item.mp_category[0]).toBe('Coffee shop');
    }
  });

  it('gives the same answer for the same request and different places for another query', () => {
    expect(search('pizza', 10).body).toBe(search('pizza', 10).body);
    expect(search('pizza', 10).body).not.toBe(search('museum', 10).body);
  });

  it('pages through results with start and runs dry past the last result', () => {
    const first = simulatedPlaceIds(search('bakery', 10, 0).req);
    const second = simulatedPlaceIds(search('bakery', 10, 10).req);
    expect(new Set([...first, ...second]).size).toBe(20);
    const { body, requestUrl } = search('bakery', 20, SIM_MAPS_MAX_RESULTS);
    expect(parseMapsSearch(body, { q: 'bakery', hl: 'en', requestUrl }).organicResults).toEqual([]);
  });

  it('serves a place page for a listed place id that the place parser reads as the same place, every field populated', () => {
    const { body, requestUrl, req } = search('hotel', 3);
    const listed = parseMapsSearch(body, { q: 'hotel', hl: 'en', requestUrl }).organicResults[1];
    const placeId = simulatedPlaceIds(req)[1];
    expect(listed.place_id).toBe(placeId);

    const url = `${BASE}/maps/place/?q=place_id:${placeId}`;
    const html = mapsPlacePage(placeId);
    expect(html).toBe(mapsPlacePage(placeId));
    const record = parsePlacePage(html, { url });
    // Questions and answers and the review summary are not simulated; the closed flags are false for open places.
    expect(emptyKeys(record, ['optional_questions_and_answers', 'optional_review_summary'])).toEqual([]);
    expect(record).toMatchObject({
      mp_company_name: listed.name,
      mp_place_id: placeId,
      cid: listed.cid,
      mp_phone: listed.mp_phone,
      mp_website: listed.website,
      mp_state_abbr: 'NY',
      mp_state_name: 'New York',
      mp_country_name: 'United States',
      mp_permanently_closed: false,
      mp_temporarily_closed: false,
      latitude: listed.latitude,
      longitude: listed.longitude,
    });
    expect(record.mp_hours).toHaveLength(7);
  });

  it('serves a page for an id it never listed', () => {
    const record = parsePlacePage(mapsPlacePage('not-a-real-id'), { url: `${BASE}/maps/place/x` });
    expect(record.mp_company_name).not.toBe('');
  });
});
