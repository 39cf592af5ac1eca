// Shapes merged facts into the wire records: the maps-search place item and the single-place record.
import type { MapsPlaceItem, PlaceRecord } from '@trawl/contracts';
import { countryName, usState } from './address.util.js';
import type { PlaceFacts } from './place-facts.util.js';

/** The place's maps URL: the one the data gives, else one built from its feature id, else from its place id. */
export function mapsUrlOf(f: PlaceFacts, fallback?: string): string {
  if (f.mapsUrl) return f.mapsUrl;
  if (f.dataId) {
    const slug = encodeURIComponent(f.name ?? '').replace(/%20/g, '+');
    return `https://www.google.com/maps/place/${slug}/data=!4m2!3m1!1s${f.dataId}`;
  }
  if (fallback) return fallback;
  const q = encodeURIComponent(f.name ?? '');
  return `https://www.google.com/maps/search/?api=1&query=${q}${f.placeId ? `&query_place_id=${f.placeId}` : ''}`;
}

export function reviewsUrlOf(f: PlaceFacts): string {
  if (f.reviewsUrl) return f.reviewsUrl;
  return f.placeId ? `https://search.google.com/local/reviews?placeid=${f.placeId}` : '';
}

function stateParts(f: PlaceFacts): { abbr: string; name: string } {
  const state = f.state ?? '';
  const us = !f.countryCode || f.countryCode === 'US' ? usState(state) : { abbr: '', name: '' };
  if (us.abbr) return us;
  return state.length > 0 && state.length <= 3 ? { abbr: state, name: '' } : { abbr: '', name: state };
}

export function toMapsPlaceItem(f: PlaceFacts): MapsPlaceItem {
  return {
    name: f.name ?? '',
    place_id: f.placeId ?? '',
    cid: f.cid ?? '',
    country: f.countryCode ?? '',
    state: f.state ?? '',
    city: f.city ?? '',
    borough: f.borough ?? '',
    postal_code: f.postalCode ?? '',
    address: f.address ?? '',
    street_addr: f.street ?? '',
    street_addr_supplement: f.streetSupplement ?? '',
    latitude: f.latitude ?? null,
    longitude: f.longitude ?? null,
    claimed: f.claimed ?? false,
    rating: f.rating ?? null,
    number_of_reviews: f.reviewsCount ?? 0,
    website: f.website ?? '',
    mp_phone: f.phone ?? null,
    mp_category: f.categories ?? [],
    mp_description: f.description ?? '',
    mp_image: f.image ?? '',
    mp_maps_url: mapsUrlOf(f),
    mp_reviews_url: reviewsUrlOf(f),
    mp_price_range_dollar_sign: f.priceDollar ?? '',
    mp_orders_urls: f.ordersUrls ?? [],
    order_online_url: f.ordersUrls?.[0] ?? null,
    mp_hours: f.hours ?? [],
    about: JSON.stringify(f.about ?? []),
  };
}

export function toPlaceRecord(f: PlaceFacts, pageUrl?: string): PlaceRecord {
  const state = stateParts(f);
  return {
    about: JSON.stringify(f.about ?? []),
    ...(f.cid ? { cid: f.cid } : {}),
    ctx_city: f.city ?? '',
    ctx_country: f.countryCode ?? '',
    ctx_state: state.abbr || state.name,
    mp_address: f.address ?? '',
    mp_category: f.categories ?? [],
    mp_city: f.city ?? '',
    mp_claimed: f.claimed ?? false,
    mp_company_name: f.name ?? '',
    mp_country_name: countryName(f.countryCode),
    mp_description: f.description ?? '',
    mp_hours: f.hours ?? [],
    mp_image: f.image ?? null,
    mp_maps_url: mapsUrlOf(f, pageUrl),
    mp_menu_and_appointment_urls: f.menuUrls ?? [],
    mp_orders_urls: f.ordersUrls ?? [],
    mp_permanently_closed: f.permanentlyClosed ?? false,
    mp_phone: f.phone ?? null,
    mp_place_id: f.placeId ?? '',
    mp_price_range: f.priceText ?? null,
    mp_price_range_dollar_sign: f.priceDollar ?? null,
    mp_rating: f.rating ?? null,
    mp_reviews_count: f.reviewsCount ?? 0,
    mp_reviews_url: reviewsUrlOf(f),
    mp_state_abbr: state.abbr,
    mp_state_name: state.name,
    mp_street_address:
      f.streetSupplement && !(f.street ?? '').includes(f.streetSupplement)
        ? [f.street, f.streetSupplement].filter(Boolean).join(', ')
        : (f.street ?? ''),
    mp_temporarily_closed: f.temporarilyClosed ?? false,
    mp_website: f.website ?? '',
    mp_zip_code: f.postalCode ?? '',
    latitude: f.latitude ?? null,
    longitude: f.longitude ?? null,
    optional_popular_times: f.popularTimes ?? null,
    optional_questions_and_answers: null,
    optional_review_summary: f.reviewSummary ?? null,
  };
}
