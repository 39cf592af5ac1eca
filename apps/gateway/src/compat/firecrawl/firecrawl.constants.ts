import type { CrawlStatus, ErrorCode, TaskStatus } from '@trawl/contracts';

/**
 * Firecrawl's API (v2 and v1) onto Trawl's native operations: every translation table of this peer, in one place.
 * A route of firecrawl-v2.controller.ts / firecrawl-v1.controller.ts reads these and nothing else decides what an
 * option does. The lead switches a `pending` entry to `mapped` when the native field it names lands (ADR 0024).
 */

/** Who is adding a native feature a Firecrawl option waits for (the engineers' workstreams). */
export type PendingOwner = 'content' | 'pool' | 'crawl';

/**
 * What Trawl does with one Firecrawl option:
 * - `mapped`: copied onto the native request's field `native` (value checks by the native DTO), through `convert`
 *   when Firecrawl's value differs in kind or unit (a converted `undefined` sets nothing);
 * - `pending`: the native field `native` is being added by `owner`; until then the option is ignored and named in
 *   the answer's `warning`; switching the entry to `{ kind: 'mapped', native }` is all it takes once it lands;
 * - `unsupported`: Trawl does not do this; named in `warning` when `asks(value)` (default: any value given);
 * - `inert`: changes nothing in Firecrawl's own answer either (tracking, origin); accepted silently.
 */
export type OptionRule =
  | { kind: 'mapped'; native: string; convert?: (value: unknown) => unknown }
  | { kind: 'pending'; native: string; owner: PendingOwner }
  | { kind: 'unsupported'; why: string; asks?: (value: unknown) => boolean }
  | { kind: 'inert' };

const given = (v: unknown): boolean => v !== undefined && v !== null;
const isTrue = (v: unknown): boolean => v === true;
const nonEmpty = (v: unknown): boolean => (Array.isArray(v) ? v.length > 0 : given(v));

/** Scrape options (v2 `/v2/scrape` body, `scrapeOptions` of search and batch; v1 alike). `url` and `formats` aside. */
export const SCRAPE_OPTIONS: Readonly<Record<string, OptionRule>> = {
  headers: { kind: 'mapped', native: 'headers' },
  waitFor: { kind: 'mapped', native: 'waitFor' },
  timeout: { kind: 'mapped', native: 'timeout' },
  maxAge: { kind: 'mapped', native: 'maxAge' },
  onlyMainContent: { kind: 'mapped', native: 'onlyMainContent' },
  includeTags: { kind: 'mapped', native: 'includeTags' },
  excludeTags: { kind: 'mapped', native: 'excludeTags' },
  mobile: { kind: 'mapped', native: 'mobile' },
  actions: { kind: 'mapped', native: 'actions' },
  location: { kind: 'mapped', native: 'location' },
  skipTlsVerification: { kind: 'unsupported', why: 'Trawl always verifies TLS', asks: isTrue },
  storeInCache: { kind: 'mapped', native: 'storeInCache' },
  zeroDataRetention: { kind: 'unsupported', why: 'Trawl keeps results for its cache and task lookup', asks: isTrue },
  blockAds: { kind: 'mapped', native: 'blockAds' },
  proxy: {
    kind: 'unsupported',
    why: 'Trawl picks proxies itself (PROXY_URLS)',
    asks: (v) => given(v) && v !== 'auto' && v !== 'basic',
  },
  minAge: { kind: 'unsupported', why: 'Trawl has no minimum cache age' },
  parsers: { kind: 'unsupported', why: 'Trawl has no document parsers to choose from', asks: nonEmpty },
  removeBase64Images: { kind: 'unsupported', why: 'Trawl keeps images as the page has them', asks: isTrue },
  fastMode: { kind: 'unsupported', why: 'Trawl has one scrape mode', asks: isTrue },
  useMock: { kind: 'unsupported', why: 'Trawl has no mocks', asks: given },
  // v1's options of the `json` / `extract` formats: read by those formats' rule (`llm`), nothing on their own.
  jsonOptions: { kind: 'inert' },
  extract: { kind: 'inert' },
  changeTrackingOptions: { kind: 'unsupported', why: 'Trawl does not track changes' },
  lockdown: { kind: 'unsupported', why: 'Trawl has no lockdown mode', asks: isTrue },
  domainTools: { kind: 'unsupported', why: 'Trawl has no domain tools', asks: nonEmpty },
  // Tracking and client identification: no effect on the answer.
  origin: { kind: 'inert' },
  integration: { kind: 'inert' },
  __experimental_cache: { kind: 'inert' },
  __agentHints: { kind: 'inert' },
};

/** A Firecrawl format onto a native one; `decode` turns the native field into Firecrawl's value. */
export type FormatRule =
  | { kind: 'mapped'; native: string; decode?: 'scrape-html'; passEntry?: boolean; llmJson?: boolean }
  | { kind: 'pending'; native: string; owner: PendingOwner }
  | { kind: 'unsupported'; why: string };

/** Formats, by name (v2: a string or `{ type }`; v1: strings, `screenshot@fullPage` included). */
export const FORMATS: Readonly<Record<string, FormatRule>> = {
  markdown: { kind: 'mapped', native: 'markdown' },
  // Native `html` is base64 of the percent-encoded markup (the spec's sample); Firecrawl's is the markup.
  html: { kind: 'mapped', native: 'html', decode: 'scrape-html' },
  rawHtml: { kind: 'mapped', native: 'rawHtml' },
  links: { kind: 'mapped', native: 'links' },
  // The entry is passed as given (`screenshot`, `screenshot@fullPage` or the object form): the native scrape takes all three.
  screenshot: { kind: 'mapped', native: 'screenshot', passEntry: true },
  // ADR 0029: answered by the language model configured on extractor-scrape (without one: 400).
  summary: { kind: 'mapped', native: 'summary' },
  // v2's `{ type: 'json', schema, prompt }`, or v1's `json` / `extract` with `jsonOptions` / `extract`: the native
  // `{ type: 'json', schema, prompt }` entry (`llmJson`), answered under the name asked for.
  json: { kind: 'mapped', native: 'json', llmJson: true },
  extract: { kind: 'mapped', native: 'json', llmJson: true },
  changeTracking: { kind: 'unsupported', why: 'Trawl does not track changes' },
  branding: { kind: 'unsupported', why: 'Trawl does not read branding' },
  images: { kind: 'unsupported', why: 'Trawl does not list images' },
  attributes: { kind: 'unsupported', why: 'Trawl does not read attributes' },
  audio: { kind: 'unsupported', why: 'Trawl does not transcribe audio' },
};

/**
 * Format names that are another's spelling: v1's `screenshot@fullPage` (v2's `{ type: "screenshot", fullPage: true }`)
 * is the `screenshot` entry, so that one entry decides both.
 */
export const FORMAT_ALIASES: Readonly<Record<string, string>> = { 'screenshot@fullPage': 'screenshot' };

/** The native format asked for when none of the requested ones maps (e.g. only `links`): the page is still read. */
export const FALLBACK_NATIVE_FORMAT = 'markdown';

/** Search options (`/v2/search`, `/v1/search`), `query` and `scrapeOptions` aside. */
export const SEARCH_OPTIONS: Readonly<Record<string, OptionRule>> = {
  limit: { kind: 'mapped', native: 'num' },
  country: { kind: 'mapped', native: 'gl' },
  location: { kind: 'mapped', native: 'location' },
  tbs: { kind: 'mapped', native: 'tbs' },
  lang: { kind: 'mapped', native: 'hl' },
  timeout: { kind: 'mapped', native: 'timeout' },
  sources: {
    kind: 'unsupported',
    why: 'Trawl searches the web only (news and images are not searched)',
    asks: (v) =>
      Array.isArray(v) && v.some((s) => (typeof s === 'string' ? s : (s as { type?: unknown })?.type) !== 'web'),
  },
  categories: { kind: 'unsupported', why: 'Trawl has no search categories', asks: nonEmpty },
  includeDomains: { kind: 'unsupported', why: 'Trawl does not filter results by domain', asks: nonEmpty },
  excludeDomains: { kind: 'unsupported', why: 'Trawl does not filter results by domain', asks: nonEmpty },
  filter: { kind: 'unsupported', why: 'Trawl has no search filter', asks: given },
  highlights: { kind: 'unsupported', why: 'Trawl does not highlight results', asks: isTrue },
  toolDetail: { kind: 'unsupported', why: 'Trawl has no search tools', asks: given },
  domainTools: { kind: 'unsupported', why: 'Trawl has no domain tools', asks: nonEmpty },
  enterprise: { kind: 'unsupported', why: 'Trawl has no enterprise search', asks: nonEmpty },
  ignoreInvalidURLs: { kind: 'inert' },
  threatProtection: { kind: 'inert' },
  origin: { kind: 'inert' },
  integration: { kind: 'inert' },
};

/** Batch options (`/v2/batch/scrape`, `/v1/batch/scrape`), `urls`, `webhook` and the scrape options aside. */
export const BATCH_OPTIONS: Readonly<Record<string, OptionRule>> = {
  ignoreInvalidURLs: { kind: 'mapped', native: 'ignoreInvalidURLs' },
  maxConcurrency: {
    kind: 'unsupported',
    why: "Trawl shares its workers fairly among keys (the key's own limits apply)",
    asks: given,
  },
  appendToId: { kind: 'unsupported', why: 'a batch cannot be appended to', asks: given },
  zeroDataRetention: SCRAPE_OPTIONS.zeroDataRetention,
};

/**
 * Crawl options (`/v2/crawl`, `/v1/crawl`; both versions' names), `url`, `scrapeOptions` and `webhook` aside, onto the
 * native crawl (`POST /crawl`, ADR 0026). A `convert` turns Firecrawl's value into the native one (Firecrawl's `delay`
 * is in seconds, Trawl's in ms). `crawlEntireDomain` (v2) and `allowBackwardLinks` (v1) land on the mapping's
 * `crawlEntireDomain`, which the crawl mapper turns into a path scope: when not true, only paths under the start URL's
 * path are crawled, as Firecrawl does (`pathScopedIncludes`).
 */
export const CRAWL_OPTIONS: Readonly<Record<string, OptionRule>> = {
  limit: { kind: 'mapped', native: 'limit' },
  maxDiscoveryDepth: { kind: 'mapped', native: 'maxDepth' },
  maxDepth: { kind: 'mapped', native: 'maxDepth' },
  includePaths: { kind: 'mapped', native: 'includePaths' },
  excludePaths: { kind: 'mapped', native: 'excludePaths' },
  allowExternalLinks: { kind: 'mapped', native: 'allowExternalLinks' },
  allowSubdomains: { kind: 'mapped', native: 'allowSubdomains' },
  ignoreQueryParameters: { kind: 'mapped', native: 'ignoreQueryParameters' },
  sitemap: { kind: 'mapped', native: 'sitemap' },
  ignoreSitemap: { kind: 'mapped', native: 'sitemap', convert: (v) => (v === true ? 'skip' : 'include') },
  crawlEntireDomain: { kind: 'mapped', native: 'crawlEntireDomain' },
  allowBackwardLinks: { kind: 'mapped', native: 'crawlEntireDomain' },
  delay: { kind: 'mapped', native: 'delay', convert: (v) => (typeof v === 'number' ? Math.round(v * 1000) : v) },
  maxConcurrency: { kind: 'mapped', native: 'maxConcurrency' },
  deduplicateSimilarURLs: {
    kind: 'unsupported',
    why: 'Trawl always folds duplicates (canonical link, normalised URL)',
    asks: (v) => v === false,
  },
  regexOnFullURL: { kind: 'unsupported', why: 'Trawl matches the paths patterns against path and query', asks: isTrue },
  robotsUserAgent: { kind: 'unsupported', why: 'Trawl reads robots.txt for its own agent (CRAWL_ROBOTS_AGENT)' },
  ignoreRobotsTxt: { kind: 'unsupported', why: 'Trawl always obeys robots.txt', asks: isTrue },
  zeroDataRetention: SCRAPE_OPTIONS.zeroDataRetention,
  origin: { kind: 'inert' },
  integration: { kind: 'inert' },
};

/**
 * The native fields a crawl's `scrapeOptions` carries (CrawlScrapeOptionsDto: POST /scrape's page options, ADR 0039);
 * the cache fields are answered by CACHE_FIELDS_OFF_THE_SYNC_PATH, anything else is named in `warning`.
 */
export const CRAWL_SCRAPE_FIELDS: ReadonlySet<string> = new Set([
  'formats',
  'headers',
  'timeout',
  'waitFor',
  'onlyMainContent',
  'includeTags',
  'excludeTags',
  'blockAds',
  'actions',
  'location',
  'mobile',
]);

/** The formats a crawl's pages can carry (the native crawl's `scrapeOptions.formats`; a screenshot in any form). */
export const CRAWL_FORMATS: ReadonlySet<string> = new Set(['markdown', 'html', 'rawHtml', 'links', 'screenshot']);

/**
 * The scrape options of the gateway's result cache, on a path that never reads or fills it (a batch's or a crawl's
 * pages, ADR 0039): the warning each value earns, or none. `maxAge` is how old a cached answer may be, never a demand
 * for one: those pages are always scraped fresh, which any `maxAge` allows (Firecrawl itself scrapes afresh on a
 * cache miss), so it is taken silently. `storeInCache: true` asks for the pages to be kept for later scrapes, which
 * these paths do not do.
 */
export const CACHE_FIELDS_OFF_THE_SYNC_PATH: Readonly<Record<string, (value: unknown) => string | undefined>> = {
  maxAge: () => undefined,
  storeInCache: (v) =>
    v === true ? "storeInCache: these pages are not stored in Trawl's result cache; ignored" : undefined,
};

/** Map options (`/v2/map`, `/v1/map`), `url` aside, onto the native map (`POST /map`). */
export const MAP_OPTIONS: Readonly<Record<string, OptionRule>> = {
  limit: { kind: 'mapped', native: 'limit' },
  search: { kind: 'mapped', native: 'search' },
  includeSubdomains: { kind: 'mapped', native: 'includeSubdomains' },
  timeout: { kind: 'mapped', native: 'timeout' },
  sitemap: { kind: 'mapped', native: 'sitemap' },
  ignoreSitemap: { kind: 'mapped', native: 'sitemap', convert: (v) => (v === true ? 'skip' : 'include') },
  sitemapOnly: { kind: 'mapped', native: 'sitemap', convert: (v) => (v === true ? 'only' : undefined) },
  ignoreQueryParameters: {
    kind: 'unsupported',
    why: 'Trawl lists each URL as found (query included)',
    asks: (v) => v === false,
  },
  location: { kind: 'unsupported', why: 'Trawl maps a site from one place', asks: given },
  useIndex: { kind: 'unsupported', why: 'Trawl has no index of sites; it maps the site live', asks: isTrue },
  ignoreCache: { kind: 'inert' },
  threatProtection: { kind: 'inert' },
  auditMetadata: { kind: 'inert' },
  origin: { kind: 'inert' },
  integration: { kind: 'inert' },
};

/** Firecrawl's crawl states are the native crawl's (ADR 0026 took Firecrawl's names). */
export const CRAWL_STATES: Readonly<Record<CrawlStatus, BatchState>> = {
  scraping: 'scraping',
  completed: 'completed',
  failed: 'failed',
  cancelled: 'cancelled',
};

/** Firecrawl's state of one page of a batch, from its native task's state. */
export const PAGE_STATES: Readonly<Record<TaskStatus, 'scraping' | 'completed' | 'failed'>> = {
  completed: 'completed',
  failed: 'failed',
  active: 'scraping',
  waiting: 'scraping',
  'waiting-children': 'scraping',
  delayed: 'scraping',
  unknown: 'scraping',
};

/** Firecrawl's batch states. */
export type BatchState = 'scraping' | 'completed' | 'failed' | 'cancelled';

/** Documents per page of a batch status answer; more pages are linked by `next`. */
export const BATCH_PAGE_SIZE = 100;

/** How long Firecrawl keeps a batch's results (its `expiresAt`): 24 h after it started. */
export const BATCH_RETENTION_MS = 24 * 60 * 60 * 1000;

/** Firecrawl's HTTP status and `code` for each native error code. Never 502: firecrawl-js retries a 502 itself. */
export const ERRORS: Readonly<Record<ErrorCode, { status: number; code: string }>> = {
  VALIDATION_FAILED: { status: 400, code: 'BAD_REQUEST' },
  MALFORMED_JSON: { status: 400, code: 'BAD_REQUEST' },
  JSON_TOO_DEEP: { status: 400, code: 'BAD_REQUEST' },
  UNAUTHORIZED: { status: 401, code: 'UNAUTHORIZED' },
  FORBIDDEN: { status: 403, code: 'FORBIDDEN' },
  NOT_FOUND: { status: 404, code: 'NOT_FOUND' },
  TASK_NOT_FOUND: { status: 404, code: 'JOB_NOT_FOUND' },
  TASK_FINISHED: { status: 409, code: 'JOB_FINISHED' },
  TASK_CANCELLED: { status: 409, code: 'JOB_CANCELLED' },
  IDEMPOTENCY_KEY_REUSED: { status: 409, code: 'IDEMPOTENCY_KEY_REUSED' },
  IDEMPOTENCY_KEY_IN_PROGRESS: { status: 409, code: 'IDEMPOTENCY_KEY_IN_PROGRESS' },
  METHOD_NOT_ALLOWED: { status: 405, code: 'METHOD_NOT_ALLOWED' },
  PAYLOAD_TOO_LARGE: { status: 413, code: 'PAYLOAD_TOO_LARGE' },
  URI_TOO_LONG: { status: 414, code: 'URI_TOO_LONG' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' },
  HEADERS_TOO_LARGE: { status: 431, code: 'HEADERS_TOO_LARGE' },
  URL_NOT_ALLOWED: { status: 403, code: 'URL_BLOCKED' },
  RATE_LIMITED: { status: 429, code: 'RATE_LIMIT_EXCEEDED' },
  PAGE_NOT_RECOGNISED: { status: 500, code: 'SCRAPE_SITE_ERROR' },
  UNSUPPORTED_CONTENT_TYPE: { status: 415, code: 'SCRAPE_UNSUPPORTED_FILE_ERROR' },
  CONTENT_TOO_LARGE: { status: 413, code: 'SCRAPE_CONTENT_TOO_LARGE' },
  PAGE_TOO_COMPLEX: { status: 500, code: 'SCRAPE_SITE_ERROR' },
  UPSTREAM_NOT_FOUND: { status: 500, code: 'SCRAPE_DNS_RESOLUTION_ERROR' },
  UPSTREAM_ERROR: { status: 500, code: 'SCRAPE_SITE_ERROR' },
  UPSTREAM_BLOCKED: { status: 500, code: 'SCRAPE_ALL_ENGINES_FAILED' },
  UPSTREAM_TIMEOUT: { status: 408, code: 'SCRAPE_TIMEOUT' },
  SERVICE_UNAVAILABLE: { status: 503, code: 'SERVICE_UNAVAILABLE' },
  OVERLOADED: { status: 503, code: 'SERVICE_UNAVAILABLE' },
  LLM_UNAVAILABLE: { status: 500, code: 'LLM_ERROR' },
  LLM_ANSWER_INVALID: { status: 500, code: 'LLM_ERROR' },
  // Firecrawl answers 402 when a team's credits are spent (ADR 0040).
  LLM_BUDGET_EXHAUSTED: { status: 402, code: 'INSUFFICIENT_TOKENS' },
  INTERNAL: { status: 500, code: 'INTERNAL_SERVER_ERROR' },
};
