import { CRAWL_DOCUMENT } from './crawl-document.schema.js';
import { CRAWL_PLAN } from './crawl-plan.schema.js';
import { CRAWL_STATUSES } from './crawl.types.js';
import * as s from './schema/json-schema.builder.js';

/** Reply of `crawl.start.v1` and `data` of POST /crawl. */
export const CRAWL_START_REPLY = s.named(
  'CrawlStartReply',
  s.object({
    id: s.str('The crawl’s id (32 hex digits).'),
    plan: s.optional(s.ref(CRAWL_PLAN)),
  }),
);
export type CrawlStartReply = s.Infer<typeof CRAWL_START_REPLY>;

/** `data` of GET /crawl/{id}: the crawl and one page of its documents (`next`: the URL of the next page). */
export const CRAWL_STATUS = s.named(
  'CrawlStatus',
  s.object({
    id: s.str(),
    status: s.enumOf(CRAWL_STATUSES),
    total: s.int('URLs the crawl took in (at most its limit).'),
    completed: s.int('URLs settled: scraped, found a duplicate, or failed.'),
    documents: s.int('Documents stored so far.'),
    /** Why the crawl failed, when it did. */
    error: s.optional(s.object({ code: s.str(), message: s.str() })),
    data: s.arr(s.ref(CRAWL_DOCUMENT)),
    next: s.nullable(s.str('URL of the next page of documents; null when none remain and the crawl has ended.')),
  }),
);
export type CrawlStatusResult = s.Infer<typeof CRAWL_STATUS>;

/** A page of a crawl that ended in an error. */
export const CRAWL_ERROR = s.named(
  'CrawlError',
  s.object({
    url: s.str('The page’s URL as the crawl took it in.'),
    code: s.str('Trawl’s error code (docs/errors.md), e.g. UPSTREAM_TIMEOUT.'),
    error: s.str('What went wrong, in the engine’s words.'),
    timestamp: s.str('When the page ended, ISO 8601.'),
  }),
);
export type CrawlErrorItem = s.Infer<typeof CRAWL_ERROR>;

/** Reply of `crawl.errors.v1` and `data` of GET /crawl/{id}/errors (Firecrawl's `errors` and `robotsBlocked`). */
export const CRAWL_ERRORS = s.named(
  'CrawlErrors',
  s.object({
    errors: s.described(
      s.arr(s.ref(CRAWL_ERROR)),
      'The pages that ended in an error, in the order they ended (the first 1,000).',
    ),
    robotsBlocked: s.described(
      s.arr(s.str()),
      'URLs in scope that robots.txt kept the crawl from, sorted (the first 1,000).',
    ),
  }),
);
export type CrawlErrorsResult = s.Infer<typeof CRAWL_ERRORS>;

/** One running crawl of the calling key. */
export const ACTIVE_CRAWL = s.named(
  'ActiveCrawl',
  s.object({
    id: s.str(),
    url: s.str('The start URL.'),
    createdAt: s.str('When the crawl started, ISO 8601.'),
    options: s.anyObject('The crawl’s request as it runs (defaults applied), its url and webhook aside.'),
  }),
);
export type ActiveCrawlItem = s.Infer<typeof ACTIVE_CRAWL>;

/** Reply of `crawl.active.v1` and `data` of GET /crawl/active. */
export const ACTIVE_CRAWLS = s.named('ActiveCrawls', s.object({ crawls: s.arr(s.ref(ACTIVE_CRAWL)) }));
export type ActiveCrawlsResult = s.Infer<typeof ACTIVE_CRAWLS>;

export const MAP_LINK = s.named('MapLink', s.object({ url: s.str(), title: s.optional(s.str()) }));
export type MapLink = s.Infer<typeof MAP_LINK>;

/** Reply of `map.site.v1` and `data` of POST /map. */
export const MAP_SITE_REPLY = s.named('MapSiteReply', s.object({ links: s.arr(s.ref(MAP_LINK)) }));
export type MapSiteReply = s.Infer<typeof MAP_SITE_REPLY>;
