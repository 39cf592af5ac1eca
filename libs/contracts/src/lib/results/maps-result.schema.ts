import * as s from '../schema/json-schema.builder.js';
import { RESULT_META } from './result-meta.schema.js';

/** Said of the fields a result-cache hit (`maxAge`) answers as they were in the first answer. */
export const REPLAYED =
  ' A result-cache hit (`maxAge`, `X-Trawl-Cache: hit`) answers the stored value, the first answer’s.';

/** Opening hours, a day a row. */
const HOURS = s.arr(s.object({ day: s.str(), times: s.arr(s.str()) }));

/** One place of a maps search. */
export const MAPS_PLACE_ITEM = s.named(
  'MapsPlaceItem',
  s.loose(
    s.object({
      name: s.str(),
      place_id: s.str(),
      cid: s.str(),
      country: s.str(),
      state: s.str(),
      city: s.str(),
      borough: s.str(),
      postal_code: s.str(),
      address: s.str(),
      street_addr: s.str(),
      street_addr_supplement: s.str(),
      /** null when the page does not show it (never 0, a real coordinate and an impossible rating). */
      latitude: s.nullable(s.num('null when the page does not show it.')),
      longitude: s.nullable(s.num('null when the page does not show it.')),
      claimed: s.bool(),
      rating: s.nullable(s.num('null when the place shows no rating.')),
      number_of_reviews: s.int(),
      website: s.str(),
      mp_phone: s.nullable(s.str()),
      mp_category: s.arr(s.str()),
      mp_description: s.str(),
      mp_image: s.str(),
      mp_maps_url: s.str(),
      mp_reviews_url: s.str(),
      mp_price_range_dollar_sign: s.str(),
      mp_orders_urls: s.arr(s.str()),
      order_online_url: s.nullable(s.str()),
      mp_hours: HOURS,
      /** Serialized JSON array of AboutGroup. */
      about: s.str(),
    }),
  ),
);
export type MapsPlaceItem = s.Infer<typeof MAPS_PLACE_ITEM>;

export const MAPS_SEARCH_DATA = s.named(
  'MapsSearchData',
  s.object({
    organicResults: s.arr(s.ref(MAPS_PLACE_ITEM)),
    searchParameters: s.object({
      engine: s.str(),
      q: s.str(),
      device: s.str(),
      mp_domain: s.str(),
      hl: s.str(),
      gl: s.str(),
      type: s.str(),
      zoom: s.str(),
      latitude: s.nullable(s.num()),
      longitude: s.nullable(s.num()),
    }),
    search_metadata: s.object({
      id: s.str(),
      status: s.str(),
      /** `YYYY-MM-DD HH:MM:SS` */
      created_at: s.str(),
      requestUrl: s.str(),
      jsonUrl: s.nullable(s.str()),
      htmlUrl: s.nullable(s.str()),
    }),
    /** Only when the request set `meta: true` (see ResultMeta). */
    meta: s.optional(s.ref(RESULT_META)),
  }),
);
export type MapsSearchData = s.Infer<typeof MAPS_SEARCH_DATA>;

/** `data` of POST /extract/search/maps: the inner search `data` plus task fields. */
export const MAPS_SEARCH_RESPONSE = s.named(
  'MapsSearchResponse',
  s.object({
    data: s.ref(MAPS_SEARCH_DATA),
    taskId: s.str(`The search's id.${REPLAYED}`),
    status: s.str(),
    finishedOn: s.formatted('date-time', `When the search finished.${REPLAYED}`),
    processedOn: s.formatted('date-time', `When the search started.${REPLAYED}`),
    stacktrace: s.nullable(s.arr(s.str())),
    totalResults: s.int(),
  }),
);
export type MapsSearchResponse = s.Infer<typeof MAPS_SEARCH_RESPONSE>;

export interface AboutGroup {
  id: string;
  name: string;
  /** `values`: what a list-valued option holds (the card types a place accepts: `["Mastercard", "Visa"]`). */
  options: { name: string; enabled: boolean; values?: string[] }[];
}

/** A single place (`data.data` of POST /extract type `mp-maps`, and of task lookup). */
export const PLACE_RECORD = s.named(
  'PlaceRecord',
  s.loose(
    s.object({
      /** Serialized JSON array of AboutGroup; `[]` when empty. */
      about: s.str(),
      cid: s.optional(s.str()),
      ctx_city: s.str(),
      ctx_country: s.str(),
      ctx_state: s.str(),
      mp_address: s.str(),
      mp_category: s.arr(s.str()),
      mp_city: s.str(),
      mp_claimed: s.bool(),
      mp_company_name: s.str(),
      mp_country_name: s.str(),
      mp_description: s.str(),
      mp_hours: HOURS,
      mp_image: s.nullable(s.str()),
      mp_maps_url: s.str(),
      mp_menu_and_appointment_urls: s.arr(s.str()),
      mp_orders_urls: s.arr(s.str()),
      mp_permanently_closed: s.bool(),
      mp_phone: s.nullable(s.str()),
      mp_place_id: s.str(),
      mp_price_range: s.nullable(s.str()),
      mp_price_range_dollar_sign: s.nullable(s.str()),
      mp_rating: s.nullable(s.num('null when the place shows no rating.')),
      mp_reviews_count: s.int(),
      mp_reviews_url: s.str(),
      mp_state_abbr: s.str(),
      mp_state_name: s.str(),
      mp_street_address: s.str(),
      mp_temporarily_closed: s.bool(),
      mp_website: s.str(),
      mp_zip_code: s.str(),
      latitude: s.nullable(s.num('null when the page does not show it.')),
      longitude: s.nullable(s.num('null when the page does not show it.')),
      optional_popular_times: s.anyValue('Popular times, when the page has them.'),
      optional_questions_and_answers: s.anyValue('Questions and answers, when the page has them.'),
      optional_review_summary: s.anyValue('Review summary, when the page has one.'),
      /** Only when the request set `meta: true` (see ResultMeta). */
      meta: s.optional(s.ref(RESULT_META)),
    }),
  ),
);
export type PlaceRecord = s.Infer<typeof PLACE_RECORD>;
