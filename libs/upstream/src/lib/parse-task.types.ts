import type { MapsSearchData, PlaceRecord, RetailRecord, WebSearchResult, WireError } from '@trawl/contracts';

/** One parse the parse pool runs: which parser, the page, and the parser's context (plain data, cloned to a thread). */
export type ParseTask =
  | { parser: 'search'; html: string; pageOffset?: number }
  | {
      parser: 'maps-search';
      html: string;
      q: string;
      hl: string;
      ll?: string;
      requestUrl: string;
      /** search_metadata.created_at, epoch ms. */
      now?: number;
    }
  | { parser: 'maps-place'; html: string; url: string }
  | { parser: 'retail'; html: string; url: string };

/** What each parser gives. */
export interface ParseResults {
  search: WebSearchResult;
  'maps-search': MapsSearchData;
  'maps-place': PlaceRecord;
  retail: RetailRecord;
}

/** A parse's outcome as a worker answers it: the record, or the parser's error on the wire (with its wall, if any). */
export type ParseOutcome<T = unknown> = { ok: true; value: T } | { ok: false; error: WireError; wall?: string };
