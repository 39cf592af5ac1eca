import { EXTRACT_TYPES, type ExtractType } from '../extract-type.constants.js';
import * as s from '../schema/json-schema.builder.js';
import { MAPS_SEARCH_DATA, PLACE_RECORD, type MapsSearchData, type PlaceRecord } from './maps-result.schema.js';
import { RETAIL_RECORD, type RetailRecord } from './retail-result.schema.js';
import { SCRAPE_RESULT, type ScrapeResult } from './scrape-result.schema.js';

/** `params` of a URL: query parameters appended to it (UrlParams). */
export const URL_PARAMS = s.mapOf(s.scalar());

/** The record each `type` of POST /extract yields. */
export interface ExtractRecordByType {
  retail: RetailRecord;
  'mp-maps': PlaceRecord;
  'mp-search': MapsSearchData;
  scrape: ScrapeResult;
}

const RECORD_SCHEMA: { [T in ExtractType]: s.Named<ExtractRecordByType[T]> } = {
  retail: RETAIL_RECORD,
  'mp-maps': PLACE_RECORD,
  'mp-search': MAPS_SEARCH_DATA,
  scrape: SCRAPE_RESULT,
};

/** `data` of POST /extract answering `type`, its record `R`. */
function extractResponseSchema<R, const T extends ExtractType>(type: T, record: s.Schema<R>) {
  return s.object({
    data: record,
    taskId: s.str(),
    status: s.str(),
    params: s.object({ url: s.str(), type: s.constant(type), timeout: s.int(), params: s.optional(URL_PARAMS) }),
    stacktrace: s.str('Empty on success.'),
  });
}

/** `data` of POST /extract (for one `type`, or any). */
export type ExtractResponse<T extends ExtractType = ExtractType> = s.Infer<
  ReturnType<typeof extractResponseSchema<ExtractRecordByType[T], T>>
>;

/** One `/extract` response per `type` (`ExtractResponse_mp_maps` ...), and their `oneOf` keyed by `params.type`. */
export const EXTRACT_RESPONSES = EXTRACT_TYPES.map((type) => {
  const record: s.Named<unknown> = RECORD_SCHEMA[type];
  return s.named(`ExtractResponse_${type.replace('-', '_')}`, extractResponseSchema(type, s.ref(record)));
});
export const EXTRACT_RESPONSE = s.named(
  'ExtractResponse',
  s.oneOf('One shape per `type`: `params.type` tells which record `data` is.', EXTRACT_RESPONSES.map(s.ref)),
);
