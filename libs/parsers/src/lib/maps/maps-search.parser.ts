import { createHash } from 'node:crypto';
import type { MapsSearchData } from '@trawl/contracts';
import { type Json, parseMapsJson } from './maps-json.util.js';
import { loadPageDom } from '../scan/page-dom.factory.js';
import type { ScanMeter } from '../scan/scan-meter.types.js';
import { parseLl } from './maps-url.builder.js';
import { assertNotBlocked, isJsonInput, isMapsHtml, notRecognised } from './maps-page.guard.js';
import { findPlaceArrays, readPlaceArray } from './place-data.reader.js';
import { readPlaceDom } from './place-dom.reader.js';
import { mergeFacts, type PlaceFacts } from './place-facts.util.js';
import { embeddedStateDocuments, readEmbeddedPlace } from './place-page.parser.js';
import { toMapsPlaceItem } from './place-record.mapper.js';
import { looksLikePlaceDom, readSearchDom } from './search-dom.reader.js';

export interface MapsSearchContext {
  q: string;
  hl: string;
  gl?: string;
  /** `@lat,lng,zoomz` as requested. */
  ll?: string;
  /** The URL that was fetched. */
  requestUrl: string;
  /** When the search ran (search_metadata.created_at); defaults to now. */
  now?: Date;
  /** search_metadata.id; defaults to a digest of the request URL and time. */
  id?: string;
  /** Counts the parse's work (tests). */
  meter?: ScanMeter;
}

function placesFromJson(doc: Json): PlaceFacts[] {
  return findPlaceArrays(doc).map(readPlaceArray);
}

function keyOf(f: PlaceFacts): string {
  return f.dataId ?? f.placeId ?? `${f.name ?? ''}|${f.address ?? ''}`;
}

/** Embedded entries first (richer), each completed by its rendered card; cards the state lacks are appended. */
function mergeLists(embedded: PlaceFacts[], cards: PlaceFacts[]): PlaceFacts[] {
  const byKey = new Map(cards.map((c) => [keyOf(c), c]));
  const out = embedded.map((e) => {
    const card = byKey.get(keyOf(e));
    byKey.delete(keyOf(e));
    return mergeFacts(e, card);
  });
  for (const card of byKey.values()) out.push(card);
  const seen = new Set<string>();
  return out.filter((f) => {
    const k = keyOf(f);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

function formatCreatedAt(d: Date): string {
  return (
    `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ` +
    `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`
  );
}

function domainOf(requestUrl: string): string {
  try {
    return new URL(requestUrl).host.replace(/^(www|maps)\./, '');
  } catch {
    return '';
  }
}

function glOf(ctx: MapsSearchContext): string {
  if (ctx.gl) return ctx.gl.toLowerCase();
  try {
    return new URL(ctx.requestUrl).searchParams.get('gl')?.toLowerCase() ?? '';
  } catch {
    return '';
  }
}

/** Place facts found in a maps search response (JSON body or HTML page), in result order. */
export function readMapsSearchPlaces(input: string, meter?: ScanMeter): PlaceFacts[] {
  if (isJsonInput(input)) {
    const doc = parseMapsJson(input, meter);
    if (!Array.isArray(doc)) throw notRecognised('The JSON is not a maps search response');
    return placesFromJson(doc);
  }
  if (!isMapsHtml(input)) throw notRecognised('The page is not a maps page');
  const docs = embeddedStateDocuments(input, meter);
  const embedded = docs.flatMap(placesFromJson);
  const $ = loadPageDom(input, meter);
  const cards = readSearchDom($);
  if (embedded.length === 0 && cards.length === 0 && looksLikePlaceDom(input)) {
    // A query with a single match opens that place instead of a list.
    const place = mergeFacts(readEmbeddedPlace(docs), readPlaceDom($, input));
    return place.name ? [place] : [];
  }
  if (cards.length > 0 || embedded.length <= 1) return mergeLists(embedded, cards);
  return embedded;
}

/**
 * Parses a maps search response: the `/search?tbm=map` JSON body (`)]}'`-prefixed), or a maps search HTML page
 * (embedded state first, rendered result cards second). A place page (a query with a single match) gives one result.
 */
export function parseMapsSearch(input: string, ctx: MapsSearchContext): MapsSearchData {
  assertNotBlocked(input, ctx.meter);
  const places = readMapsSearchPlaces(input, ctx.meter);
  const vp = parseLl(ctx.ll);
  const now = ctx.now ?? new Date();
  const createdAt = formatCreatedAt(now);
  return {
    organicResults: places.map(toMapsPlaceItem),
    searchParameters: {
      engine: 'mp_maps',
      q: ctx.q,
      device: 'desktop',
      mp_domain: domainOf(ctx.requestUrl),
      hl: ctx.hl,
      gl: glOf(ctx),
      type: 'search',
      zoom: vp ? String(vp.zoom) : '',
      latitude: vp?.latitude ?? null,
      longitude: vp?.longitude ?? null,
    },
    search_metadata: {
      id: ctx.id ?? createHash('sha1').update(`${ctx.requestUrl}|${createdAt}`).digest('hex').slice(0, 24),
      status: 'Success',
      created_at: createdAt,
      requestUrl: ctx.requestUrl,
      jsonUrl: null,
      htmlUrl: null,
    },
  };
}
