import type { ScrapeActionsResult } from '../dto/scrape-browser.types.js';

/** `data` of POST /scrape. */
export interface ScrapeResult {
  sourceURL: string;
  taskId: string;
  /** The instance that served the scrape (hostname and process). */
  edgeId: string;
  /** HTTP-like status of the task: 200 when the scrape completed. */
  status: number;
  /** HTTP status of the scraped page. */
  rawStatus: number;
  /** base64 of the percent-encoded page markup (as the spec's sample); present when `html` was asked for. */
  html?: string;
  /**
   * Markdown of the page; present when `markdown` was asked for. With `onlyMainContent` (the default, ADR 0023) the
   * page's main content, else the whole page; `includeTags` / `excludeTags` applied first.
   */
  markdown?: string;
  /** Every link of the page, absolute, each once, in page order; present when `links` was asked for. */
  links?: string[];
  /** The document as served (http) or as the browser's main response carried it; present when `rawHtml` was asked for. */
  rawHtml?: string;
  /** The screenshot asked for in `formats`: a data URL (`data:image/png;base64,…`, JPEG with `quality`). */
  screenshot?: string;
  /** The object the language model read out of the page, valid against the `json` format's schema (ADR 0029). */
  json?: Record<string, unknown>;
  /** The language model's summary of the page's main content; present when `summary` was asked for (ADR 0029). */
  summary?: string;
  /** What the request's `actions` produced (present when it had actions). */
  actions?: ScrapeActionsResult;
  /** Page metadata, with Firecrawl's names (ADR 0023). */
  metadata: ScrapeMetadata;
}

/**
 * What the document says about itself, with Firecrawl's names; a field the page does not carry is absent. The Twitter
 * card fields keep their own names (`twitter:card`, `twitter:title` ...), as Firecrawl returns a page's other meta tags.
 */
export interface ScrapeMetadataFields {
  title?: string;
  description?: string;
  /** The root element's `lang`. */
  language?: string;
  keywords?: string;
  robots?: string;
  /** The `rel=canonical` link, absolute. */
  canonical?: string;
  favicon?: string;
  ogTitle?: string;
  ogDescription?: string;
  ogUrl?: string;
  ogImage?: string;
  ogSiteName?: string;
  ogLocale?: string;
  ogType?: string;
  ogAudio?: string;
  ogVideo?: string;
  ogDeterminer?: string;
  [twitter: `twitter:${string}`]: string | undefined;
}

/** `metadata` of a scrape: the document's own fields, and what the scrape saw. */
export interface ScrapeMetadata extends ScrapeMetadataFields {
  /** The document's title ('' when it has none). */
  title: string;
  /** Final URL after redirects. */
  url: string;
  /** The URL asked for (extractor-scrape always sets it; optional for results made before ADR 0023). */
  sourceURL?: string;
  /** HTTP status of the page's main response (always set by extractor-scrape, as `sourceURL`). */
  statusCode?: number;
  contentType: string | null;
  engine: 'browser' | 'http';
  /** Requests the page made that `blockAds` refused (ads and trackers); present when the browser rendered it so. */
  adsBlocked?: number;
}

/** Decodes the `html` field: base64, then percent-decoding. */
export function decodeScrapeHtml(html: string): string {
  return decodeURIComponent(Buffer.from(html, 'base64').toString('utf8'));
}

export function encodeScrapeHtml(markup: string): string {
  return Buffer.from(encodeURIComponent(markup), 'utf8').toString('base64');
}
