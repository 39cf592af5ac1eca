import type { SettleOptions } from '@trawl/browser-pool';
import type { ScrapeEngine } from '@trawl/contracts';
import type { AllowList } from '@trawl/safe-fetch';
import type { LlmSettings } from './llm/llm.settings.js';

export const SCRAPE_SETTINGS = Symbol('SCRAPE_SETTINGS');

export interface ScrapeSettings {
  /** Engine when the request names none (SCRAPE_DEFAULT_ENGINE). */
  defaultEngine: ScrapeEngine;
  /** SSRF allowlist (SSRF_ALLOW_HOSTS). */
  allow: AllowList;
  /** Largest page accepted: the http engine's body, bytes, and the browser's rendered HTML, characters. */
  maxBodyBytes: number;
  /** This instance, as the result's `edgeId`. */
  edgeId: string;
  /** The browser engine's wait after `load` (BROWSER_SETTLE_QUIET_MS, BROWSER_SETTLE_MAX_MS). */
  settle: SettleOptions;
  /** Largest screenshot image, bytes (SCRAPE_SCREENSHOT_MAX_BYTES). */
  maxScreenshotBytes: number;
  /** Longest time a scrape's actions may take in all, ms (SCRAPE_ACTIONS_MAX_MS). */
  actionsMaxMs: number;
  /** The chat-completions endpoint of the `json` and `summary` formats (ADR 0029); undefined: none configured. */
  llm?: LlmSettings;
}
