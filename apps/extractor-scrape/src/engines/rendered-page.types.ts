import type { ScrapeAction, ScrapeActionsResult, ScrapeLocation, ScreenshotFormat } from '@trawl/contracts';

/** A page as an engine got it: the markup or bytes to return and what the result's metadata needs. */
export interface RenderedPage {
  /** Rendered markup (browser) or the body decoded as a browser would (http); '' when the page is not a document. */
  html: string;
  /** The body as served, decompressed (http engine only): what a PDF's text is read from. */
  body?: Buffer;
  /** HTTP status of the page's main response. */
  status: number;
  /** Final URL after redirects. */
  url: string;
  /** The document's title, when the engine knows it (the browser's `document.title`); else read from the HTML. */
  title?: string;
  contentType: string | null;
  /** The main response's `Retry-After` header, when it answered 429 or 503 with one (`retryAfterOf`). */
  retryAfter?: string;
  engine: 'browser' | 'http';
  /** The document as served (the main response's body, decoded), when the request asked for `rawHtml`. */
  rawHtml?: string;
  /** The screenshot asked for (browser engine): a data URL. */
  screenshot?: string;
  /** What the actions produced (browser engine, a request with actions). */
  actions?: ScrapeActionsResult;
  /** Requests refused as ads or trackers (browser engine with `blockAds`). */
  adsBlocked?: number;
}

/** What a scrape asks of the browser beyond the page (ADR 0019); any of them makes the scrape use the browser. */
export interface BrowserScrapeOptions {
  screenshot?: ScreenshotFormat;
  actions?: ScrapeAction[];
  location?: ScrapeLocation;
  mobile?: boolean;
}

export interface ScrapeEngineRequest {
  url: string;
  headers?: Record<string, string>;
  /** Send `headers` with every request the page makes, not only to the requested origin's page (ADR 0019). */
  headersEverywhere?: boolean;
  waitFor?: number;
  /** Epoch milliseconds by which the engine must be done. */
  deadline: number;
  /** Aborted when the caller abandoned the request (ADR 0043): the engine stops, its page or fetch given up. */
  signal?: AbortSignal;
  /** Who the scrape is for, as the platform said (ScrapePageRequestDto.tenant); the browser's tab reset follows it. */
  tenant?: string;
  /** Keep the document as served (`formats: ["rawHtml"]`). */
  rawHtml?: boolean;
  /** The browser options of the request, when it has any. */
  browser?: BrowserScrapeOptions;
  /** Refuse the page's requests to ads and trackers (browser engine; the http engine fetches only the document). */
  blockAds: boolean;
}
