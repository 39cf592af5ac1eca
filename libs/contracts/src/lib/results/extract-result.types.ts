import type { ExtractType } from '../extract-type.constants.js';
import type { UrlParams } from '../dto/url-params.validator.js';
import type { MapsSearchData, PlaceRecord } from './maps-result.types.js';
import type { RetailRecord } from './retail-result.types.js';
import type { ScrapeResult } from './scrape-result.types.js';

/** The record each `type` of POST /extract yields. */
export interface ExtractRecordByType {
  retail: RetailRecord;
  'mp-maps': PlaceRecord;
  'mp-search': MapsSearchData;
  scrape: ScrapeResult;
}

/** `data` of POST /extract. */
export interface ExtractResponse<T extends ExtractType = ExtractType> {
  data: ExtractRecordByType[T];
  taskId: string;
  status: string;
  params: { url: string; type: T; timeout: number; params?: UrlParams };
  /** Empty on success. */
  stacktrace: string;
}
