// Layer 1: the place array Google Maps embeds (place page state, search endpoint entries). Indices are the ones the
// data has carried since at least 2023; each is read defensively, so a moved field is missing rather than wrong.
import type { AboutGroup } from '@trawl/contracts';
import { countryCodeOf, splitAddress } from './address.util.js';
import { arr, at, type Json, num, str, walkJson } from './maps-json.util.js';
import { cidFromDataId, DATA_ID_PATTERN, type PlaceFacts } from './place-facts.util.js';

/** Whether `value` has the shape of a place array: a feature id at [10] and a name at [11]. */
export function isPlaceArray(value: Json | undefined): value is Json[] {
  return (
    Array.isArray(value) &&
    value.length > 11 &&
    typeof value[10] === 'string' &&
    DATA_ID_PATTERN.test(value[10]) &&
    typeof value[11] === 'string' &&
    value[11].trim() !== ''
  );
}

/** Every place array inside a document, outermost first, without descending into a found one. */
export function findPlaceArrays(doc: Json | undefined): Json[][] {
  const out: Json[][] = [];
  walkJson(doc, (v) => {
    if (isPlaceArray(v)) {
      out.push(v);
      return false;
    }
    return true;
  });
  return out;
}

const GOOGLE_ASSET = /^https?:\/\/([a-z0-9-]+\.)*(googleusercontent|gstatic|google)\.com\//i;
const PHOTO_URL = /^https:\/\/lh\d\.googleusercontent\.com\/(p|gps-cs-s|gps-proxy)\//;

function strings(value: Json | undefined, keep: (s: string) => boolean): string[] {
  const out = new Set<string>();
  walkJson(value, (v) => {
    if (typeof v === 'string' && !out.has(v) && keep(v)) out.add(v);
  });
  return [...out];
}

function readHours(b: Json[]): { day: string; times: string[] }[] {
  const fromWeek = arr(b, 34, 1)
    .map((d) => ({ day: str(d, 0) ?? '', times: arr(d, 1).filter((t): t is string => typeof t === 'string') }))
    .filter((d) => d.day !== '');
  if (fromWeek.length > 0) return fromWeek;
  return arr(b, 203, 0)
    .map((d) => ({
      day: str(d, 0) ?? '',
      times: arr(d, 3)
        .map((t) => str(t, 0))
        .filter((t): t is string => t !== undefined),
    }))
    .filter((d) => d.day !== '');
}

function isAboutOption(o: Json): boolean {
  return Array.isArray(o) && typeof o[0] === 'string' && o[0].startsWith('/geo/') && typeof o[1] === 'string';
}

/**
 * The values of a list-valued option (flag 3, e.g. the card types a place accepts): entities
 * `["/g/…", null, "Mastercard", "Mastercard"]` under `[2][4]`, in order, without repeats.
 */
function optionValues(o: Json[]): string[] {
  const out = new Set<string>();
  walkJson(at(o, 2, 4), (v) => {
    if (Array.isArray(v) && typeof v[0] === 'string' && /^\/[gm]\//.test(v[0]) && typeof v[2] === 'string') {
      if (v[2].trim()) out.add(v[2]);
      return false;
    }
    return true;
  });
  return [...out];
}

/** Attribute groups (`["service_options", "Service options", [[ "/geo/type/…", "Outdoor seating", [1, …] ], …]]`). */
export function readAbout(value: Json | undefined): AboutGroup[] {
  const groups: AboutGroup[] = [];
  walkJson(value, (g) => {
    if (
      Array.isArray(g) &&
      typeof g[0] === 'string' &&
      !g[0].startsWith('/') &&
      typeof g[1] === 'string' &&
      Array.isArray(g[2]) &&
      g[2].length > 0 &&
      g[2].every(isAboutOption)
    ) {
      groups.push({
        id: g[0],
        name: g[1],
        options: (g[2] as Json[][]).map((o) => {
          const values = optionValues(o);
          if (values.length > 0) return { name: o[1] as string, enabled: true, values };
          const flag = num(o, 2, 1, 0, 0) ?? num(o, 2, 0);
          return { name: o[1] as string, enabled: flag === 1 };
        }),
      });
      return false;
    }
    return true;
  });
  return groups;
}

function readImage(b: Json[]): string | undefined {
  const direct = str(b, 72, 0, 1, 6, 0) ?? str(b, 72, 0, 0, 6, 0) ?? str(b, 37, 0, 0, 6, 0);
  if (direct) return direct;
  return strings(at(b, 72) ?? at(b, 171) ?? at(b, 37), (s) => PHOTO_URL.test(s))[0];
}

function readOrders(b: Json[]): string[] {
  return strings(at(b, 75), (s) => /^https?:\/\//.test(s) && !GOOGLE_ASSET.test(s));
}

function readMenus(b: Json[]): string[] {
  const out = new Set<string>();
  const menu = str(b, 38, 0);
  if (menu) out.add(menu);
  for (const r of arr(b, 46)) {
    const link = str(r, 0);
    if (link) out.add(link);
  }
  return [...out];
}

function readClaimed(b: Json[]): boolean {
  const claimLink = strings(at(b, 49), (s) => /claimbz|business\.google\.com\/create/.test(s));
  return claimLink.length === 0;
}

function readStatus(b: Json[]): { status?: string; permanentlyClosed: boolean; temporarilyClosed: boolean } {
  const status = str(b, 34, 4, 4);
  const flags = strings(at(b, 88), () => true)
    .concat(status ? [status] : [])
    .join(' | ');
  return {
    status,
    permanentlyClosed: /permanently closed/i.test(flags),
    temporarilyClosed: /temporarily closed/i.test(flags),
  };
}

/** Reads one place array into facts. */
export function readPlaceArray(b: Json[]): PlaceFacts {
  const name = str(b, 11);
  const dataId = str(b, 10);
  const addr = arr(b, 183, 1);
  const full = str(b, 39) ?? str(b, 18)?.replace(new RegExp(`^${escapeRegExp(name ?? '')},\\s*`), '');
  const lines = arr(b, 2).filter((l): l is string => typeof l === 'string');
  const address = full ?? (lines.length > 0 ? lines.join(', ') : undefined);
  const split = splitAddress(address);
  const street = str(addr, 1);
  const streetAlt = str(addr, 2);
  const reviewsUrl = str(b, 4, 3, 0);
  const status = readStatus(b);
  const menuUrls = readMenus(b);
  const menus = new Set(menuUrls);
  return {
    name,
    dataId,
    cid: cidFromDataId(dataId),
    placeId: str(b, 78) ?? /placeid=([^&]+)/.exec(reviewsUrl ?? '')?.[1],
    address,
    street: street ?? split.street,
    streetSupplement: street
      ? streetAlt && !street.includes(streetAlt)
        ? streetAlt
        : undefined
      : split.streetSupplement,
    borough: str(addr, 0),
    city: str(addr, 3) ?? split.city,
    postalCode: str(addr, 4) ?? split.postalCode,
    state: str(addr, 5) ?? split.state,
    countryCode: countryCodeOf(str(addr, 6)) ?? split.countryCode,
    latitude: num(b, 9, 2),
    longitude: num(b, 9, 3),
    rating: num(b, 4, 7),
    reviewsCount: num(b, 4, 8),
    website: str(b, 7, 0),
    phone: str(b, 178, 0, 0),
    categories: arr(b, 13).filter((c): c is string => typeof c === 'string'),
    description: str(b, 32, 1, 1) ?? str(b, 154, 0, 0),
    image: readImage(b),
    mapsUrl: str(b, 27),
    reviewsUrl,
    priceDollar: str(b, 4, 2),
    priceText: str(b, 4, 10),
    ordersUrls: readOrders(b).filter((u) => !menus.has(u)),
    menuUrls,
    hours: readHours(b),
    about: readAbout(at(b, 100)),
    claimed: readClaimed(b),
    status: status.status,
    permanentlyClosed: status.permanentlyClosed || undefined,
    temporarilyClosed: status.temporarilyClosed || undefined,
    popularTimes: at(b, 84, 0) === undefined ? undefined : readPopularTimes(b),
  };
}

/** Popular times as `{ day, hours: [{ hour, busyness }] }` per weekday, when the data has them. */
function readPopularTimes(b: Json[]): { day: number; hours: { hour: number; busyness: number }[] }[] | undefined {
  const days = arr(b, 84, 0)
    .map((d) => ({
      day: num(d, 0) ?? 0,
      hours: arr(d, 1).map((h) => ({ hour: num(h, 0) ?? 0, busyness: num(h, 1) ?? 0 })),
    }))
    .filter((d) => d.day > 0 && d.hours.length > 0);
  return days.length > 0 ? days : undefined;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The short place record 2024+ place pages embed instead of the full array:
 * `[dataId, name, viewport, [null, null, lat, lng], …, [[null, null, null, "/m/…", placeId]]]`.
 */
export function readPlaceStub(value: Json | undefined): PlaceFacts | undefined {
  let found: PlaceFacts | undefined;
  walkJson(value, (v) => {
    if (found) return false;
    if (Array.isArray(v) && typeof v[0] === 'string' && DATA_ID_PATTERN.test(v[0]) && typeof v[1] === 'string') {
      const placeId = strings(v, (s) => /^ChIJ[\w-]{10,}$/.test(s))[0];
      found = {
        dataId: v[0],
        cid: cidFromDataId(v[0]),
        name: v[1],
        latitude: num(v, 3, 2),
        longitude: num(v, 3, 3),
        placeId,
      };
      return false;
    }
    return true;
  });
  return found;
}
