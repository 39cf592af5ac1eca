/**
 * Defaults and bounds the API applies. Defaults are the spec's; bounds are ours: the README's Limits table and
 * openapi.json list them (the gateway's LIMITS_TABLE, read from here).
 */
export const LIMITS = {
  defaultTimeoutMs: 25000,
  minTimeoutMs: 500,
  maxTimeoutMs: 120000,
  maxWaitForMs: 60000,
  /** includeTags / excludeTags: selectors at most, and characters a selector. */
  maxTagSelectors: 50,
  maxTagSelectorChars: 500,
  defaultBatchStart: 0,
  defaultBatchNum: 100,
  /** A map-places search without `num`: one page of Google Maps results. */
  defaultMapsSearchNum: 20,
  maxSearchNum: 300,
  maxMapsNum: 500,
  maxStart: 1000,
  /** Largest number of queries or URLs in one batch call. */
  maxBatchItems: 10000,
  maxUrlLength: 4096,
  maxQueryLength: 2048,
  /** Longest `location` of a web search (a canonical place name). */
  maxLocationLength: 256,
  maxHeaders: 50,
  /**
   * A URL batch's `scrapeOptions` are stored with each of its tasks (in the job data and the task record): their JSON
   * times the number of URLs may be at most this many bytes (ADR 0039), so one 5 MB body cannot become gigabytes.
   */
  maxBatchScrapeOptionsBytes: 64 * 1024 * 1024,
  /** Largest accepted HTTP request body, bytes. */
  maxBodyBytes: 5 * 1024 * 1024,
  /** Largest `maxAge` (ms) a synchronous call may ask for: a stored result at most this old (24 h). */
  maxCacheAgeMs: 24 * 60 * 60 * 1000,
  /** Longest `Idempotency-Key` header, characters. */
  maxIdempotencyKeyLength: 255,
  /** How long an `Idempotency-Key` is remembered after its submission, ms (24 h). */
  idempotencyWindowMs: 24 * 60 * 60 * 1000,
} as const;

/** An `Idempotency-Key`: 1-255 visible ASCII characters (no spaces, no control characters). */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7E]{1,255}$/;

export const DEFAULT_MAPS_LL = '46.423669,-129.9427085,3z';
export const DEFAULT_BATCH_MAPS_LL = '@46.423669,-122.176129,3z';
export const DEFAULT_HL = 'en';
export const DEFAULT_BATCH_GL = 'US';
/** `<lat>,<lng>,<zoom>z`, optionally led by `@` as in maps URLs. */
export const LL_PATTERN = /^@?-?\d{1,2}(\.\d+)?,-?\d{1,3}(\.\d+)?,\d{1,2}(\.\d+)?z$/;
