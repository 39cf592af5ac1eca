import type { ResultMeta } from './result-meta.types.js';
/** `data` of POST /extract/search/maps: the inner search `data` plus task fields. */
export interface MapsSearchResponse {
  data: MapsSearchData;
  taskId: string;
  status: string;
  finishedOn: string;
  processedOn: string;
  stacktrace: string[] | null;
  totalResults: number;
}

export interface MapsSearchData {
  organicResults: MapsPlaceItem[];
  searchParameters: {
    engine: string;
    q: string;
    device: string;
    mp_domain: string;
    hl: string;
    gl: string;
    type: string;
    zoom: string;
    latitude: number | null;
    longitude: number | null;
  };
  search_metadata: {
    id: string;
    status: string;
    /** `YYYY-MM-DD HH:MM:SS` */
    created_at: string;
    requestUrl: string;
    jsonUrl: string | null;
    htmlUrl: string | null;
  };
  /** Only when the request set `meta: true` (see ResultMeta). */
  meta?: ResultMeta;
}

/** One place of a maps search. */
export interface MapsPlaceItem {
  name: string;
  place_id: string;
  cid: string;
  country: string;
  state: string;
  city: string;
  borough: string;
  postal_code: string;
  address: string;
  street_addr: string;
  street_addr_supplement: string;
  /** null when the page does not show it (never 0, a real coordinate and an impossible rating). */
  latitude: number | null;
  longitude: number | null;
  claimed: boolean;
  rating: number | null;
  number_of_reviews: number;
  website: string;
  mp_phone: string | null;
  mp_category: string[];
  mp_description: string;
  mp_image: string;
  mp_maps_url: string;
  mp_reviews_url: string;
  mp_price_range_dollar_sign: string;
  mp_orders_urls: string[];
  order_online_url: string | null;
  mp_hours: { day: string; times: string[] }[];
  /** Serialized JSON array of AboutGroup. */
  about: string;
}

export interface AboutGroup {
  id: string;
  name: string;
  /** `values`: what a list-valued option holds (the card types a place accepts: `["Mastercard", "Visa"]`). */
  options: { name: string; enabled: boolean; values?: string[] }[];
}

/** A single place (`data.data` of POST /extract type `mp-maps`, and of task lookup). */
export interface PlaceRecord {
  /** Serialized JSON array of AboutGroup; `[]` when empty. */
  about: string;
  cid?: string;
  ctx_city: string;
  ctx_country: string;
  ctx_state: string;
  mp_address: string;
  mp_category: string[];
  mp_city: string;
  mp_claimed: boolean;
  mp_company_name: string;
  mp_country_name: string;
  mp_description: string;
  mp_hours: { day: string; times: string[] }[];
  mp_image: string | null;
  mp_maps_url: string;
  mp_menu_and_appointment_urls: string[];
  mp_orders_urls: string[];
  mp_permanently_closed: boolean;
  mp_phone: string | null;
  mp_place_id: string;
  mp_price_range: string | null;
  mp_price_range_dollar_sign: string | null;
  /** null when the place shows no rating. */
  mp_rating: number | null;
  mp_reviews_count: number;
  mp_reviews_url: string;
  mp_state_abbr: string;
  mp_state_name: string;
  mp_street_address: string;
  mp_temporarily_closed: boolean;
  mp_website: string;
  mp_zip_code: string;
  /** null when the page does not show them. */
  latitude: number | null;
  longitude: number | null;
  optional_popular_times: unknown;
  optional_questions_and_answers: unknown;
  optional_review_summary: unknown;
  /** Only when the request set `meta: true` (see ResultMeta). */
  meta?: ResultMeta;
}
