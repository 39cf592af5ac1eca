import type { PlaceRecord } from '@trawl/contracts';
import { embeddedJsonDocuments, type Json, parseMapsJson, readAssignedJson } from './maps-json.util.js';
import { assertNotBlocked, isJsonInput, isMapsHtml, notRecognised } from './maps-page.guard.js';
import { findPlaceArrays, isPlaceArray, readPlaceArray, readPlaceStub } from './place-data.reader.js';
import { readPlaceDom } from './place-dom.reader.js';
import { mergeFacts, type PlaceFacts } from './place-facts.util.js';
import { toPlaceRecord } from './place-record.mapper.js';
import { readPlaceUrl } from './maps-dom.util.js';
import { loadPageDom } from '../scan/page-dom.factory.js';
import type { ScanMeter } from '../scan/scan-meter.types.js';

export interface PlacePageContext {
  /** The URL the page was fetched from (used for the maps URL and, failing all else, coordinates). */
  url: string;
  /** Counts the parse's work (tests). */
  meter?: ScanMeter;
}

const normName = (s: string | undefined): string => (s ?? '').toLocaleLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');

/**
 * The place array of a state document: `[6]` of a place-page payload; else, when the page shows a place panel
 * (`panelName`), the array named like it (a place opened over a results list: the state holds the list); else the
 * only or first one found.
 */
function mainPlaceArray(doc: Json, panelName?: string): Json[] | undefined {
  if (Array.isArray(doc) && isPlaceArray(doc[6])) return doc[6];
  const all = findPlaceArrays(doc);
  if (panelName && all.length > 0) return all.find((a) => normName(a[11] as string) === normName(panelName));
  return all[0];
}

/** The JSON documents of a maps page's embedded state (APP_INITIALIZATION_STATE and the documents in its strings). */
export function embeddedStateDocuments(html: string, meter?: ScanMeter): Json[] {
  const state = readAssignedJson(html, 'APP_INITIALIZATION_STATE', meter);
  return state === undefined ? [] : embeddedJsonDocuments(state, meter);
}

/**
 * Facts from the embedded state documents of a place page (full place array first, the short 2024+ record second).
 * With `panelName` (the heading of the rendered place panel), only records of that place are read.
 */
export function readEmbeddedPlace(docs: Json[], panelName?: string): PlaceFacts | undefined {
  if (docs.length === 0) return undefined;
  let full: PlaceFacts | undefined;
  for (const doc of docs) {
    const place = mainPlaceArray(doc, panelName);
    if (place) {
      full = readPlaceArray(place);
      break;
    }
  }
  let stub: PlaceFacts | undefined;
  for (const doc of docs) {
    stub = readPlaceStub(doc);
    if (stub) break;
  }
  if (stub && panelName && normName(stub.name) !== normName(panelName)) stub = undefined;
  return full || stub ? mergeFacts(full, stub) : undefined;
}

/**
 * Parses a maps place page (HTML with its embedded state, or that state / the place payload as JSON) into the
 * single-place record. Layers: embedded place array, then the short embedded record, then the rendered DOM, then
 * the page URL.
 */
export function parsePlacePage(input: string, ctx: PlacePageContext): PlaceRecord {
  const meter = ctx.meter;
  assertNotBlocked(input, meter);
  let facts: PlaceFacts;
  if (isJsonInput(input)) {
    const doc = parseMapsJson(input, meter);
    const place = doc === undefined ? undefined : mainPlaceArray(doc);
    if (!place) throw notRecognised('The JSON is not a maps place payload');
    facts = readPlaceArray(place);
  } else {
    if (!isMapsHtml(input)) throw notRecognised('The page is not a maps page');
    const dom = readPlaceDom(loadPageDom(input, meter), input, ctx.url);
    const embedded = readEmbeddedPlace(embeddedStateDocuments(input, meter), dom.panelOverList ? dom.name : undefined);
    const hasPlaceDom = dom.address !== undefined || dom.phone !== undefined || dom.rating !== undefined;
    if (!embedded && !hasPlaceDom) throw notRecognised('The maps page is not a place page');
    facts = mergeFacts(embedded, dom);
  }
  facts = mergeFacts(facts, readPlaceUrl(ctx.url));
  if (!facts.name) throw notRecognised('The maps page names no place');
  return toPlaceRecord(facts, ctx.url);
}
