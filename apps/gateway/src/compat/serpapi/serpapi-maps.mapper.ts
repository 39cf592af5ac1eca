import type { MapsPlaceItem, MapsSearchData, PlaceRecord } from '@trawl/contracts';
import { EMPTY_RESULTS_MESSAGE, GOOGLE_ORIGIN } from './serpapi.constants.js';
import { searchMetadata, type SearchContext } from './serpapi-google.mapper.js';
import type { SerpApiMapping } from './serpapi-params.mapper.js';

/** Google's data id (`0x…:0x…`) where the place's maps URL carries one (`!1s0x…:0x…`). */
function dataIdOf(mapsUrl: string): string | undefined {
  return /!1s(0x[0-9a-f]+:0x[0-9a-f]+)/i.exec(mapsUrl)?.[1];
}

/** SerpAPI's `hours`: one `{ <day>: "<times>" }` per day. */
function hoursOf(hours: { day: string; times: string[] }[]): Record<string, string>[] {
  return hours.map((h) => ({ [h.day.toLowerCase()]: h.times.join(', ') }));
}

function operatingHoursOf(hours: { day: string; times: string[] }[]): Record<string, string> {
  return Object.fromEntries(hours.map((h) => [h.day.toLowerCase(), h.times.join(', ')]));
}

/** One place of a maps search as an entry of SerpAPI's `local_results`. */
export function localResultOf(p: MapsPlaceItem, position: number): Record<string, unknown> {
  const dataId = dataIdOf(p.mp_maps_url);
  return {
    position,
    title: p.name,
    place_id: p.place_id,
    ...(dataId ? { data_id: dataId } : {}),
    ...(p.cid ? { data_cid: p.cid } : {}),
    gps_coordinates: { latitude: p.latitude, longitude: p.longitude },
    rating: p.rating,
    reviews: p.number_of_reviews,
    ...(p.mp_price_range_dollar_sign ? { price: p.mp_price_range_dollar_sign } : {}),
    type: p.mp_category[0] ?? '',
    types: p.mp_category,
    address: p.address,
    ...(p.mp_phone ? { phone: p.mp_phone } : {}),
    ...(p.website ? { website: p.website } : {}),
    ...(p.mp_description ? { description: p.mp_description } : {}),
    ...(p.mp_hours.length > 0 ? { hours: hoursOf(p.mp_hours), operating_hours: operatingHoursOf(p.mp_hours) } : {}),
    ...(p.mp_image ? { thumbnail: p.mp_image } : {}),
  };
}

/** A single place page as SerpAPI's `place_results`. */
export function placeResultOf(p: PlaceRecord): Record<string, unknown> {
  const dataId = dataIdOf(p.mp_maps_url);
  return {
    title: p.mp_company_name,
    place_id: p.mp_place_id,
    ...(dataId ? { data_id: dataId } : {}),
    ...(p.cid ? { data_cid: p.cid } : {}),
    gps_coordinates: { latitude: p.latitude, longitude: p.longitude },
    rating: p.mp_rating,
    reviews: p.mp_reviews_count,
    ...(p.mp_price_range_dollar_sign ? { price: p.mp_price_range_dollar_sign } : {}),
    type: p.mp_category,
    address: p.mp_address,
    ...(p.mp_phone ? { phone: p.mp_phone } : {}),
    ...(p.mp_website ? { website: p.mp_website } : {}),
    ...(p.mp_description ? { description: p.mp_description } : {}),
    ...(p.mp_hours.length > 0 ? { hours: hoursOf(p.mp_hours), operating_hours: operatingHoursOf(p.mp_hours) } : {}),
    ...(p.mp_image ? { thumbnail: p.mp_image } : {}),
    ...(p.mp_permanently_closed ? { permanently_closed: true } : {}),
  };
}

function mapsUrlOf(mapping: SerpApiMapping): string {
  const q = String(mapping.native.q ?? '');
  const ll = String(mapping.native.ll ?? '').replace(/^@/, '');
  return `${GOOGLE_ORIGIN}/maps/search/${encodeURIComponent(q).replace(/%20/g, '+')}${ll ? `/@${ll}` : ''}`;
}

/**
 * engine=google_maps, type=search: `local_results` with SerpAPI's fields; a search that resolves to exactly one
 * place answers `place_results` instead, as SerpAPI does.
 */
export function toMapsSearchAnswer(
  data: MapsSearchData,
  mapping: SerpApiMapping,
  ctx: SearchContext,
): Record<string, unknown> {
  const start = Number(mapping.native.start ?? 0);
  const places = data.organicResults;
  const answer: Record<string, unknown> = {
    search_metadata: searchMetadata(ctx, mapsUrlOf(mapping)),
    search_parameters: { ...mapping.given, engine: 'google_maps', type: 'search', google_domain: 'google.com' },
  };
  if (places.length === 1 && start === 0) {
    answer.place_results = localResultOf(places[0] as MapsPlaceItem, 1);
    return answer;
  }
  answer.search_information = {
    local_results_state: places.length > 0 ? 'Results for exact spelling' : 'Fully empty',
    query_displayed: String(mapping.native.q ?? ''),
  };
  if (places.length === 0) {
    answer.error = EMPTY_RESULTS_MESSAGE;
    return answer;
  }
  answer.local_results = places.map((p, i) => localResultOf(p, start + i + 1));
  return answer;
}

/** engine=google_maps, type=place: `place_results`. */
export function toPlaceAnswer(
  place: PlaceRecord,
  mapping: SerpApiMapping,
  ctx: SearchContext,
  placeUrl: string,
): Record<string, unknown> {
  return {
    search_metadata: searchMetadata(ctx, placeUrl),
    search_parameters: { ...mapping.given, engine: 'google_maps', type: 'place', google_domain: 'google.com' },
    place_results: placeResultOf(place),
  };
}

/** The place page of a place id, as the maps extractor reads it (it rebases Google's address onto its upstream). */
export function placeUrlOf(placeId: string, hl: string | undefined): string {
  const url = new URL('/maps/place/', GOOGLE_ORIGIN);
  url.searchParams.set('q', `place_id:${placeId}`);
  if (hl) url.searchParams.set('hl', hl);
  return url.toString();
}
