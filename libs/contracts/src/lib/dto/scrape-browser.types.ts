/**
 * The browser options of a scrape (ADR 0019), in Firecrawl's shapes: the `screenshot` format, `actions` run before
 * the page is read, `location` and `mobile`. They need the browser engine.
 */

/** `formats` entries for a screenshot: the viewport, or the whole page (`screenshot@fullPage`). */
export const SCREENSHOT_FORMATS = ['screenshot', 'screenshot@fullPage'] as const;

/** The object form of the screenshot format (Firecrawl v2's `{ type: 'screenshot', fullPage, quality, viewport }`). */
export interface ScreenshotFormat {
  type: 'screenshot';
  /** The whole scrollable page instead of the viewport. */
  fullPage?: boolean;
  /** 1-100: a JPEG of that quality instead of a PNG. */
  quality?: number;
  /** The viewport to render the page in, CSS pixels. */
  viewport?: { width: number; height: number };
}

export const SCRAPE_ACTION_TYPES = [
  'wait',
  'click',
  'write',
  'press',
  'scroll',
  'screenshot',
  'scrape',
  'executeJavascript',
] as const;
export type ScrapeActionType = (typeof SCRAPE_ACTION_TYPES)[number];

/** One action before the scrape (Firecrawl's action shapes). */
export type ScrapeAction =
  | { type: 'wait'; milliseconds?: number; selector?: string }
  | { type: 'click'; selector: string; all?: boolean }
  | { type: 'write'; text: string }
  | { type: 'press'; key: string }
  | { type: 'scroll'; direction?: 'up' | 'down'; selector?: string }
  | { type: 'screenshot'; fullPage?: boolean; quality?: number }
  | { type: 'scrape' }
  | { type: 'executeJavascript'; script: string };

/** `location`: the country (ISO 3166-1 alpha-2) and languages the page is asked from. */
export interface ScrapeLocation {
  country?: string;
  languages?: string[];
}

/** Bounds of the browser options (checked at the gateway; the whole scrape stays within its `timeout`). */
export const BROWSER_SCRAPE_LIMITS = {
  maxActions: 50,
  /** Sum of the `wait` actions' milliseconds. */
  maxTotalWaitMs: 60_000,
  maxSelectorLength: 1000,
  maxWriteLength: 10_000,
  maxKeyLength: 50,
  maxScriptLength: 100_000,
  /** Largest JSON of one `executeJavascript` return value, characters. */
  maxScriptReturnChars: 100_000,
  maxScrapeActions: 5,
  maxScreenshotActions: 10,
  minViewport: 100,
  maxViewport: 3840,
  maxLanguages: 10,
} as const;
