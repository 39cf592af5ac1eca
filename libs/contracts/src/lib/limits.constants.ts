/** Defaults and bounds the API applies. Defaults are the spec's; bounds are ours (see docs/decisions). */
export const LIMITS = {
  defaultTimeoutMs: 25000,
  minTimeoutMs: 500,
  maxTimeoutMs: 120000,
  maxWaitForMs: 60000,
  defaultBatchStart: 0,
  defaultBatchNum: 100,
  maxSearchNum: 300,
  maxMapsNum: 500,
  maxStart: 1000,
  /** Largest number of queries or URLs in one batch call. */
  maxBatchItems: 10000,
  maxUrlLength: 4096,
  maxQueryLength: 2048,
  maxHeaders: 50,
  /** Largest accepted HTTP request body, bytes. */
  maxBodyBytes: 5 * 1024 * 1024,
} as const;

export const DEFAULT_MAPS_LL = '46.423669,-129.9427085,3z';
export const DEFAULT_BATCH_MAPS_LL = '@46.423669,-122.176129,3z';
export const DEFAULT_HL = 'en';
export const DEFAULT_BATCH_GL = 'US';
/** `<lat>,<lng>,<zoom>z`, optionally led by `@` as in maps URLs. */
export const LL_PATTERN = /^@?-?\d{1,2}(\.\d+)?,-?\d{1,3}(\.\d+)?,\d{1,2}(\.\d+)?z$/;
