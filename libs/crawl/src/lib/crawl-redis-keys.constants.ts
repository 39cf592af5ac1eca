/**
 * The Redis keys of a crawl (docs/decisions/0026-crawl-and-map.md). Every key of one crawl carries the hash tag
 * `{crawl:<id>}`, so the crawl's scripts touch one slot of a Cluster (ADR 0014) while crawls spread over the masters;
 * a host's politeness budget carries `{host:<host>}`. The active crawls (the set, each one's owner, each owner's set)
 * share the tag `{crawls}`, so the scripts that change them touch one slot.
 */
export interface CrawlKeys {
  /** Hash: owner, request, status, counters, times, error. Kept for the retention time after the crawl ends. */
  meta: string;
  /** List of frontier items (JSON `{u, d}` or the seed `{k:'seed'}`), taken first in, first out (breadth first). */
  frontier: string;
  /** Set of the normalised URLs the crawl took in (at most its limit). */
  seen: string;
  /** Sorted set of leased items (`<token> <item>`, score: the lease's end, ms). */
  leases: string;
  /** Hash: URL → leases taken (a URL that keeps killing its worker ends in an error). */
  tries: string;
  /** Hash: document key (canonical or final URL) → the URL whose page claimed it. */
  docs: string;
  /** Set of document keys stored in the documents stream. */
  published: string;
  /** Hash: host → robots.txt as read (JSON), shared by the replicas. */
  robots: string;
  /** List of the pages that ended in an error (JSON `{url, code, error, at}`), the first CRAWL_ERRORS_KEPT. Kept as the record is. */
  errors: string;
  /** Set of the URLs robots.txt kept the crawl from (links and the start URL), the first CRAWL_ERRORS_KEPT. Kept as the record is. */
  blocked: string;
}

export function crawlKeys(id: string): CrawlKeys {
  const p = `trawl:{crawl:${id}}`;
  return {
    meta: `${p}:meta`,
    frontier: `${p}:frontier`,
    seen: `${p}:seen`,
    leases: `${p}:leases`,
    tries: `${p}:tries`,
    docs: `${p}:docs`,
    published: `${p}:published`,
    robots: `${p}:robots`,
    errors: `${p}:errors`,
    blocked: `${p}:blocked`,
  };
}

/** The set of crawls still running, which the workers of every replica take pages from. */
export const ACTIVE_CRAWLS_KEY = 'trawl:{crawls}:active';

/** Hash: active crawl id → the key that started it (the workers take turns between keys). */
export const ACTIVE_CRAWL_OWNERS_KEY = 'trawl:{crawls}:owners';

/** Set of one key's active crawls (its cap, CRAWL_MAX_ACTIVE_PER_KEY); in the slot of the active set. */
export function ownerActiveCrawlsKey(owner: string): string {
  return `trawl:{crawls}:owner:${owner}`;
}

/** A host's politeness budget: requests in flight (sorted set of slot tokens, score: expiry) and the next start. */
export function hostBudgetKeys(host: string): { slots: string; next: string } {
  const p = `trawl:{host:${host}}`;
  return { slots: `${p}:slots`, next: `${p}:next` };
}
