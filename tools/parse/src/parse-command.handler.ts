import { randomUUID } from 'node:crypto';
import type {
  ExtractResponse,
  ExtractType,
  MapsSearchData,
  MapsSearchResponse,
  PlaceRecord,
  RetailRecord,
  WebSearchResult,
} from '@trawl/contracts';
import { LIMITS } from '@trawl/contracts';
import { parseMapsSearch, parsePlacePage, parseProductPage, parseSearchPage } from '@trawl/parsers';

export const PAGE_KINDS = ['search', 'maps-search', 'maps-place', 'retail'] as const;
export type PageKind = (typeof PAGE_KINDS)[number];

export interface ParseOptions {
  /** The URL the page came from (default: a file:// URL of the input). */
  url: string;
  /** maps-search: the query, language and viewport of the search. */
  q?: string;
  hl?: string;
  ll?: string;
  /** search: the request's `start` (realPosition continues from it). */
  start?: number;
}

/** What `data` of the API response holds for each kind of page. */
export interface ParsedData {
  search: WebSearchResult;
  'maps-search': MapsSearchResponse;
  'maps-place': ExtractResponse<'mp-maps'>;
  retail: ExtractResponse<'retail'>;
}

/**
 * Parses one saved page into exactly the `data` the API returns for it: POST /extract/search (`search`),
 * POST /extract/search/maps (`maps-search`), POST /extract with type `mp-maps` (`maps-place`) or `retail`.
 * Task ids and times are fresh, as in a live answer; everything else comes from the page.
 */
export function parsePage<K extends PageKind>(kind: K, page: string, options: ParseOptions): ParsedData[K];
export function parsePage(kind: PageKind, page: string, options: ParseOptions): ParsedData[PageKind] {
  switch (kind) {
    case 'search': {
      const start = options.start ?? 0;
      return parseSearchPage(page, { pageOffset: start });
    }
    case 'maps-search': {
      const processedOn = new Date();
      const data: MapsSearchData = parseMapsSearch(page, {
        q: options.q ?? queryOf(options.url),
        hl: options.hl ?? 'en',
        ll: options.ll,
        requestUrl: options.url,
        now: processedOn,
      });
      return {
        data,
        taskId: randomUUID(),
        status: 'completed',
        finishedOn: new Date().toISOString(),
        processedOn: processedOn.toISOString(),
        stacktrace: null,
        totalResults: data.organicResults.length,
      };
    }
    case 'maps-place': {
      const record: PlaceRecord = parsePlacePage(page, { url: options.url });
      return extractResponse('mp-maps', record, options.url);
    }
    case 'retail': {
      const record: RetailRecord = parseProductPage(page, { url: options.url });
      return extractResponse('retail', record, options.url);
    }
  }
}

function extractResponse<T extends ExtractType>(
  type: T,
  data: ExtractResponse<T>['data'],
  url: string,
): ExtractResponse<T> {
  return {
    data,
    taskId: randomUUID(),
    status: 'completed',
    params: { url, type, timeout: LIMITS.defaultTimeoutMs },
    stacktrace: '',
  };
}

/** The query of a maps URL (`?q=` or `/maps/search/<q>`), or ''. */
function queryOf(url: string): string {
  try {
    const u = new URL(url);
    const fromPath = /\/maps\/search\/([^/@]+)/.exec(u.pathname)?.[1];
    return u.searchParams.get('q') ?? (fromPath ? decodeURIComponent(fromPath.replace(/\+/g, ' ')) : '');
  } catch {
    return '';
  }
}
