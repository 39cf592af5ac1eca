import { TrawlError, type WebSearchResult } from '@trawl/contracts';
import { SEARCH_OPTIONS } from './firecrawl.constants.js';
import { applyOptions, clampNative, type Mapping } from './firecrawl-options.mapper.js';
import { LIMITS } from '@trawl/contracts';

/** Firecrawl's default number of search results. */
export const DEFAULT_SEARCH_LIMIT = 5;
/** Firecrawl's largest `limit`. */
export const MAX_SEARCH_LIMIT = 100;

/** One result of `data.web` (v2) or `data` (v1); scraped fields are added when `scrapeOptions` asked for any. */
export interface FirecrawlWebResult {
  url: string;
  title: string;
  description: string;
  position: number;
  [scraped: string]: unknown;
}

export interface SearchMapping extends Mapping {
  limit: number;
  /** `scrapeOptions` when it asks for content (a non-empty `formats`, or none given: Firecrawl's markdown). */
  scrapeOptions: Record<string, unknown> | null;
}

const HANDLED = new Set(['query', 'scrapeOptions']);

/** A Firecrawl search body onto the native web search request (`q`, `num`, `gl`, `hl`, `location`, `tbs`). */
export function toNativeSearch(body: Record<string, unknown>): SearchMapping {
  if (typeof body.query !== 'string' || body.query.trim() === '') {
    throw new TrawlError('VALIDATION_FAILED', 'query must be a non-empty string', { field: 'query' });
  }
  const mapping: SearchMapping = {
    native: { q: body.query },
    warnings: [],
    limit: DEFAULT_SEARCH_LIMIT,
    scrapeOptions: null,
  };
  applyOptions([SEARCH_OPTIONS], body, mapping, HANDLED);
  clampNative(mapping, 'num', 1, MAX_SEARCH_LIMIT, 'limit');
  clampNative(mapping, 'timeout', LIMITS.minTimeoutMs, LIMITS.maxTimeoutMs, 'timeout');
  if (typeof mapping.native.num === 'number') mapping.limit = mapping.native.num;
  else mapping.native.num = mapping.limit;
  const scrapeOptions = body.scrapeOptions;
  if (scrapeOptions !== undefined && scrapeOptions !== null) {
    if (typeof scrapeOptions !== 'object' || Array.isArray(scrapeOptions)) {
      throw new TrawlError('VALIDATION_FAILED', 'scrapeOptions must be an object', { field: 'scrapeOptions' });
    }
    const formats = (scrapeOptions as { formats?: unknown }).formats;
    if (!Array.isArray(formats) || formats.length > 0) mapping.scrapeOptions = scrapeOptions as Record<string, unknown>;
  }
  return mapping;
}

/** The native results as Firecrawl's web results: url, title, description, position (1-based), at most `limit`. */
export function fromNativeSearch(result: WebSearchResult, limit: number): FirecrawlWebResult[] {
  return result.results.slice(0, limit).map((r, i) => ({
    url: r.link,
    title: r.title,
    description: r.snippet,
    position: i + 1,
  }));
}
