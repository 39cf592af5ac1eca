/**
 * Which caller headers of a scrape are not credentials: content negotiation and the browser's name. Any other header
 * (cookie, authorization, proxy-authorization, x-api-key, a custom session header…) may be one: the gateway cannot
 * tell a token from a preference, so it assumes the worse.
 */
const NON_CREDENTIAL_HEADERS: ReadonlySet<string> = new Set(['accept', 'accept-language', 'user-agent']);

/** What a caller says about the cache on a synchronous call. */
export interface CacheAsk {
  /** The caller's `maxAge`, ms; absent: the operation's configured default. */
  maxAge?: number;
  /** The caller's `storeInCache`; absent: decided by the rules of `cacheUse`. */
  storeInCache?: boolean;
}

/** How one call uses the cache. */
export interface CacheUse {
  /** Answer a stored result at most this old (ms); 0: do not read. */
  readMaxAgeMs: number;
  /** Keep the fresh result for later calls. */
  store: boolean;
}

/**
 * Whether a request carries credentials: a header that may be one (any but NON_CREDENTIAL_HEADERS), its own or in its
 * `scrapeOptions` (`/extract` type scrape, ADR 0039), or a `url` with a user or password. Reads the request as the
 * extractor gets it, so every operation is checked the same way.
 */
export function carriesCredentials(request: object): boolean {
  const { headers, url, scrapeOptions } = request as { headers?: unknown; url?: unknown; scrapeOptions?: unknown };
  for (const map of [headers, (scrapeOptions as { headers?: unknown } | undefined)?.headers]) {
    if (!map || typeof map !== 'object') continue;
    for (const name of Object.keys(map)) if (!NON_CREDENTIAL_HEADERS.has(name.toLowerCase())) return true;
  }
  if (typeof url === 'string') {
    try {
      const parsed = new URL(url);
      if (parsed.username || parsed.password) return true;
    } catch {
      // Not a URL the validation let through: nothing to say about it.
    }
  }
  return false;
}

/**
 * How a call uses the result cache (ADR 0021): only what a caller or the operator asked for is kept.
 *
 * - a call with credentials uses the cache only with `storeInCache: true` (then it reads by `maxAge` and stores, as
 *   any call); without it, it neither reads nor stores;
 * - otherwise it reads when its `maxAge` (given, else the configured default) is above 0, and stores when
 *   `storeInCache` is true, or when it is absent and that `maxAge` is above 0. `maxAge: 0` and no default: nothing
 *   kept; `storeInCache: false`: never kept.
 */
export function cacheUse(ask: CacheAsk, defaultMaxAgeMs: number, credentials: boolean): CacheUse {
  const maxAge = ask.maxAge ?? defaultMaxAgeMs;
  if (credentials && ask.storeInCache !== true) return { readMaxAgeMs: 0, store: false };
  return { readMaxAgeMs: maxAge, store: ask.storeInCache ?? maxAge > 0 };
}
