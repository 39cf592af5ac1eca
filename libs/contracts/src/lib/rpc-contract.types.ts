import type {
  CrawlCancelRequest,
  CrawlGetRequest,
  CrawlStartReply,
  CrawlStartRequest,
  CrawlStatusReply,
  MapSiteReply,
  MapSiteRequest,
} from './crawl.types.js';
import type { ExtractRequestDto } from './dto/extract-request.dto.js';
import type { MapsSearchRequestDto } from './dto/maps-search-request.dto.js';
import type { RenderPageReply, RenderPageRequestDto } from './dto/render-page-request.dto.js';
import type { ScrapePageRequestDto } from './dto/scrape-page-request.dto.js';
import type { WebSearchRequestDto } from './dto/web-search-request.dto.js';
import type { MapsSearchData, MapsSearchResponse, PlaceRecord } from './results/maps-result.types.js';
import type { RetailRecord } from './results/retail-result.types.js';
import type { ScrapeResult } from './results/scrape-result.types.js';
import type { WebSearchResult } from './results/web-search-result.types.js';
import type { SUBJECTS } from './subjects.constants.js';
import type {
  TaskCancelRequest,
  TaskGetRequest,
  TaskRecord,
  TaskSubmitReply,
  TaskSubmitRequest,
} from './task.types.js';
import type { UpstreamEngine } from './upstream-engine.constants.js';

/** One URL to extract, as sent to an extractor (params already appended). */
export interface ExtractUrlRequest {
  url: string;
  timeout: number;
  /** Optional hints from `params` (hl, gl) the extractor may use. */
  params?: ExtractRequestDto['params'];
  /** How the extractor gets the page (extension of the spec); absent: the service's configuration. */
  engine?: UpstreamEngine;
  /** Add the `meta` block to the record. */
  meta?: boolean;
}

/**
 * Request and reply type of every request/reply subject. `MessagingClient.send(subject, payload)` takes its types
 * from here, so a caller cannot send the wrong payload or misread the reply.
 */
export interface RpcContract {
  [SUBJECTS.searchWeb]: { request: WebSearchRequestDto; reply: WebSearchResult };
  [SUBJECTS.searchMaps]: { request: MapsSearchRequestDto; reply: MapsSearchResponse };
  [SUBJECTS.extractPlace]: { request: ExtractUrlRequest; reply: PlaceRecord };
  [SUBJECTS.extractMapsSearchUrl]: { request: ExtractUrlRequest; reply: MapsSearchData };
  [SUBJECTS.extractRetail]: { request: ExtractUrlRequest; reply: RetailRecord };
  [SUBJECTS.scrapePage]: { request: ScrapePageRequestDto; reply: ScrapeResult };
  [SUBJECTS.renderPage]: { request: RenderPageRequestDto; reply: RenderPageReply };
  [SUBJECTS.taskSubmit]: { request: TaskSubmitRequest; reply: TaskSubmitReply };
  [SUBJECTS.taskGet]: { request: TaskGetRequest; reply: TaskRecord };
  [SUBJECTS.taskCancel]: { request: TaskCancelRequest; reply: TaskRecord };
  [SUBJECTS.crawlStart]: { request: CrawlStartRequest; reply: CrawlStartReply };
  [SUBJECTS.crawlGet]: { request: CrawlGetRequest; reply: CrawlStatusReply };
  [SUBJECTS.crawlCancel]: { request: CrawlCancelRequest; reply: CrawlStatusReply };
  [SUBJECTS.mapSite]: { request: MapSiteRequest; reply: MapSiteReply };
}

export type RpcSubject = keyof RpcContract;
export type RpcRequest<S extends RpcSubject> = RpcContract[S]['request'];
export type RpcReply<S extends RpcSubject> = RpcContract[S]['reply'];
