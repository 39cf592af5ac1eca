import { CRAWL_DOCUMENT } from './crawl-document.schema.js';
import { CRAWL_STATUSES } from './crawl.types.js';
import * as s from './schema/json-schema.builder.js';

/** Reply of `crawl.start.v1` and `data` of POST /crawl. */
export const CRAWL_START_REPLY = s.named('CrawlStartReply', s.object({ id: s.str('The crawl’s id (32 hex digits).') }));
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

export const MAP_LINK = s.named('MapLink', s.object({ url: s.str(), title: s.optional(s.str()) }));
export type MapLink = s.Infer<typeof MAP_LINK>;

/** Reply of `map.site.v1` and `data` of POST /map. */
export const MAP_SITE_REPLY = s.named('MapSiteReply', s.object({ links: s.arr(s.ref(MAP_LINK)) }));
export type MapSiteReply = s.Infer<typeof MAP_SITE_REPLY>;
