import { IsArray, IsBoolean, IsIn, IsInt, IsNotEmpty, IsString, Matches, Max, Min, ValidateIf } from 'class-validator';
import { SCRAPE_ENGINES, type ScrapeEngine } from '@trawl/contracts';
import { NatsServiceEnv } from './base.env.js';
import { EnvFlag, EnvList } from './env-value.transforms.js';

const RESOURCE_TYPES = ['image', 'media', 'font', 'stylesheet', 'texttrack', 'manifest', 'other'] as const;

/** extractor-scrape: the Playwright pool and the scrape engines. Defaults suit a 2-core machine. */
export class ExtractorScrapeEnv extends NatsServiceEnv {
  /** Browsers open at once. */
  @IsInt()
  @Min(1)
  @Max(64)
  BROWSER_MAX_BROWSERS: number = 1;

  /**
   * Pages (scrapes) at once per browser. 2 on 2 cores: rendering is CPU-bound there, and more pages at once only
   * add memory (a renderer process each) and contention (bench/scrape: same pages/s at 4, +40 % memory).
   */
  @IsInt()
  @Min(1)
  @Max(100)
  BROWSER_MAX_PAGES_PER_BROWSER: number = 2;

  /** A browser is replaced after this many pages (bounds leaks in long-lived browsers). */
  @IsInt()
  @Min(1)
  BROWSER_RETIRE_AFTER_PAGES: number = 500;

  /** Scrapes that may wait for a page; more are refused with OVERLOADED (503, retryable). */
  @IsInt()
  @Min(0)
  BROWSER_QUEUE_LIMIT: number = 100;

  /**
   * Resource types the browser does not load, comma-separated (image, media, font, stylesheet, texttrack, manifest,
   * other). Empty, like any unset variable, means the default.
   */
  @EnvList()
  @IsArray()
  @IsIn(RESOURCE_TYPES, {
    each: true,
    message: 'BROWSER_BLOCK_RESOURCES must list image, media, font, stylesheet, texttrack, manifest or other',
  })
  BROWSER_BLOCK_RESOURCES: string[] = ['image', 'media', 'font'];

  /** Reuse a browser context for the next scrape when the last one provably left nothing behind (see browser-pool). */
  @EnvFlag()
  @IsBoolean({ message: 'BROWSER_REUSE_CONTEXTS must be true or false' })
  BROWSER_REUSE_CONTEXTS: boolean = true;

  /**
   * Scrapes one reused context serves before it is closed and replaced (its renderer also collects garbage every
   * 10 scrapes; see browser-pool). A replacement costs ~1 s of CPU, so this is as long as a browser lives.
   */
  @IsInt()
  @Min(1)
  BROWSER_MAX_TASKS_PER_CONTEXT: number = 500;

  /**
   * Longest cleanup after a browser task (clean check read from outside the page, tab emptied, popups closed), ms;
   * past it the context is closed and the page slot freed anyway, so no page can keep a slot (ADR 0019).
   */
  @IsInt()
  @Min(100)
  @Max(30_000)
  BROWSER_CLEANUP_TIMEOUT_MS: number = 2000;

  /**
   * After `load`, the browser engine waits until no request is in flight and the DOM has not changed for this long,
   * ms (content written by script or filled from an API after load). A static page costs this once. 0 turns it off.
   */
  @IsInt()
  @Min(0)
  @Max(5000)
  BROWSER_SETTLE_QUIET_MS: number = 100;

  /** Longest settle wait after `load`, ms (always within the request's timeout). */
  @IsInt()
  @Min(0)
  @Max(30_000)
  BROWSER_SETTLE_MAX_MS: number = 2500;

  /**
   * Launch Chromium without its sandbox. Only for a runtime that forbids the sandbox's namespaces; as root the
   * sandbox is off anyway. Logged as a warning at start.
   */
  @EnvFlag()
  @IsBoolean({ message: 'BROWSER_NO_SANDBOX must be true or false' })
  BROWSER_NO_SANDBOX: boolean = false;

  /**
   * Upstream proxies for the browser, comma-separated `http://user:pass@host:port`: each browser session goes
   * through one, chained behind the SSRF-guarding proxy. Empty: the browser connects directly. An entry may name the
   * countries its exits serve as a fragment, `http://host:3128#DE` or `#DE+AT`: a scrape with `location.country`
   * then browses through one of that country's (ADR 0019).
   */
  @EnvList()
  @IsArray()
  @Matches(/^http:\/\/\S+$/, { each: true, message: 'PROXY_URLS must be http:// URLs, comma-separated' })
  PROXY_URLS: string[] = [];

  /** How long a proxy whose session was blocked is set aside, ms. */
  @IsInt()
  @Min(0)
  PROXY_COOLDOWN_MS: number = 300_000;

  /** A browser session keeps its identity, proxy and cookies for this many scrapes, then starts afresh. */
  @IsInt()
  @Min(1)
  BROWSER_SESSION_MAX_TASKS: number = 100;

  /** ... and for this long, ms. */
  @IsInt()
  @Min(1000)
  BROWSER_SESSION_MAX_AGE_MS: number = 30 * 60_000;

  /**
   * Filter lists in EasyList syntax for `blockAds`, comma-separated absolute paths, loaded beside Ghostery's tracker
   * database into one engine (ADR 0030): their network rules refuse requests in the browser, their element-hiding
   * rules leave ad containers out of the markdown. Default: EasyList as Debian's webext-ublock-origin-chromium installs
   * it (`easyprivacy.txt` beside it also blocks tag managers whole). A file that cannot be read is named in a warning at
   * start-up and left out; the tracker database alone then decides.
   */
  @EnvList()
  @IsArray()
  @Matches(/^\/\S+$/, { each: true, message: 'BLOCK_ADS_LISTS must be absolute file paths, comma-separated' })
  BLOCK_ADS_LISTS: string[] = [
    '/usr/share/chromium/extensions/ublock-origin/assets/thirdparties/easylist/easylist.txt',
  ];

  /** Chromium binary; empty picks Playwright's bundled build when installed, else /usr/bin/chromium. */
  @IsString()
  CHROMIUM_PATH: string = '';

  /** Engine when a request names none: browser (Chromium), http (plain fetch, no scripts) or auto. */
  @IsIn(SCRAPE_ENGINES)
  SCRAPE_DEFAULT_ENGINE: ScrapeEngine = 'browser';

  /**
   * Largest page accepted, bytes: the http engine's body (after decompression) and the browser's rendered HTML
   * (characters); over it the scrape fails with CONTENT_TOO_LARGE.
   */
  @IsInt()
  @Min(1024)
  SCRAPE_MAX_BODY_BYTES: number = 10 * 1024 * 1024;

  /**
   * Largest screenshot a scrape returns (the format, and each `screenshot` action), bytes of the image; over it the
   * scrape fails with CONTENT_TOO_LARGE. Images travel inline (base64 data URLs) in the reply.
   */
  @IsInt()
  @Min(1024)
  @Max(6 * 1024 * 1024)
  SCRAPE_SCREENSHOT_MAX_BYTES: number = 3 * 1024 * 1024;

  /** Longest time the `actions` of one scrape may take in all, ms (within the scrape's own timeout). */
  @IsInt()
  @Min(1000)
  @Max(120_000)
  SCRAPE_ACTIONS_MAX_MS: number = 60_000;

  /**
   * OpenAI-compatible chat-completions endpoint for the `json` and `summary` formats (ADR 0029): the base URL the
   * OpenAI clients take (`https://api.openai.com/v1`; `/chat/completions` is appended). Operator configuration, never
   * a caller's: it is not SSRF-guarded (a model on loopback is allowed). Empty: the two formats are refused with 400.
   */
  @Matches(/^(https?:\/\/\S+)?$/, { message: 'LLM_BASE_URL must be an http(s) URL such as https://api.openai.com/v1' })
  LLM_BASE_URL: string = '';

  /** The `model` sent to LLM_BASE_URL; required with it. */
  @ValidateIf((env: ExtractorScrapeEnv) => env.LLM_BASE_URL !== '')
  @IsNotEmpty({ message: 'LLM_MODEL must name the model when LLM_BASE_URL is set' })
  @IsString()
  LLM_MODEL: string = '';

  /** Sent as `Authorization: Bearer …` (secret); empty: no Authorization header (a local server). */
  @IsString()
  LLM_API_KEY: string = '';

  /** Longest wait for the model's answer, ms (always within the scrape's own timeout). */
  @IsInt()
  @Min(1000)
  @Max(120_000)
  LLM_TIMEOUT_MS: number = 60_000;

  /** Most characters of the page's main content sent to the model; past it the text is cut (and says so). */
  @IsInt()
  @Min(1000)
  @Max(1_000_000)
  LLM_MAX_INPUT_CHARS: number = 100_000;

  /**
   * Time one page's conversion (HTML scan and markdown, PDF text) may take in the page-work pool, ms; over it the
   * worker is stopped and the scrape fails with PAGE_TOO_COMPLEX (ADR 0007).
   */
  @IsInt()
  @Min(100)
  SCRAPE_WORK_BUDGET_MS: number = 10_000;

  /** Worker threads of the page-work pool (markdown conversion and PDF text off the event loop). */
  @IsInt()
  @Min(1)
  @Max(32)
  SCRAPE_WORK_THREADS: number = 2;
}
