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
  /** Markdown of the page; present when `markdown` was asked for. */
  markdown?: string;
  /** The screenshot asked for in `formats`: a data URL (`data:image/png;base64,…`, JPEG with `quality`). */
  screenshot?: string;
  /** What the request's `actions` produced (present when it had actions). */
  actions?: ScrapeActionsResult;
  /** Page metadata: title, final URL after redirects, engine used. */
  metadata: { title: string; url: string; engine: 'browser' | 'http'; contentType: string | null };
}

/** Decodes the `html` field: base64, then percent-decoding. */
export function decodeScrapeHtml(html: string): string {
  return decodeURIComponent(Buffer.from(html, 'base64').toString('utf8'));
}

export function encodeScrapeHtml(markup: string): string {
  return Buffer.from(encodeURIComponent(markup), 'utf8').toString('base64');
}
