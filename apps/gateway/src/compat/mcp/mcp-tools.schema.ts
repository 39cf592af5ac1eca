import { z } from 'zod';
import { CRAWL_PLAN_LIMITS } from '@trawl/contracts';

/**
 * The MCP tools' input and output schemas (zod, as the MCP SDK publishes them to clients as JSON Schema). Inputs use
 * Firecrawl's and Trawl's own field names; outputs are what `structuredContent` holds (ADR 0024).
 */

const metadata = z
  .object({
    title: z.string(),
    sourceURL: z.string(),
    url: z.string(),
    statusCode: z.number(),
  })
  .passthrough();

const document = z
  .object({
    markdown: z.string().optional(),
    html: z.string().optional(),
    rawHtml: z.string().optional(),
    links: z.array(z.string()).optional(),
    screenshot: z.string().optional(),
    json: z.unknown().optional(),
    summary: z.string().optional(),
    metadata,
    warning: z.string().optional(),
  })
  .passthrough();

/**
 * A scrape's formats, as Firecrawl's scrape tool takes them: names, or `{ type: "json", schema?, prompt? }` and
 * `{ type: "screenshot", fullPage?, quality?, viewport? }`. What each needs (a browser for a screenshot, a configured
 * model for json and summary) is checked by the scrape itself, whose error the tool returns.
 */
const scrapeFormat = z.union([
  z.enum(['markdown', 'html', 'rawHtml', 'links', 'screenshot', 'summary']),
  z.object({
    type: z.literal('json'),
    schema: z.record(z.unknown()).optional().describe('JSON Schema of the object to read out of the page.'),
    prompt: z.string().optional().describe('What to read out of the page.'),
  }),
  z.object({
    type: z.literal('screenshot'),
    fullPage: z.boolean().optional(),
    quality: z.number().int().min(1).max(100).optional().describe('JPEG quality; PNG without it.'),
    viewport: z.object({ width: z.number().int().min(1), height: z.number().int().min(1) }).optional(),
  }),
]);

export const SCRAPE_INPUT = {
  url: z.string().describe('The page to read (http or https).'),
  formats: z
    .array(scrapeFormat)
    .optional()
    .describe(
      'What to return; markdown by default. links: every link of the page; screenshot: an image (browser); json and ' +
        'summary: read by the configured language model.',
    ),
  onlyMainContent: z
    .boolean()
    .optional()
    .describe("The page's main content only, without navigation, footers and the like (true by default)."),
  includeTags: z.array(z.string()).optional().describe('CSS selectors of the only parts to keep.'),
  excludeTags: z.array(z.string()).optional().describe('CSS selectors of parts to drop.'),
  waitFor: z.number().int().min(0).optional().describe('Milliseconds to wait after load.'),
  timeout: z.number().int().min(1).optional().describe('Milliseconds for the whole scrape.'),
  headers: z.record(z.string()).optional().describe('Headers sent with the page request.'),
  maxAge: z.number().int().min(0).optional().describe('Accept a cached result at most this old (ms).'),
  mobile: z.boolean().optional().describe('Read the page as a phone does.'),
  location: z
    .object({
      country: z.string().optional().describe('Two-letter country code, e.g. DE.'),
      languages: z.array(z.string()).optional().describe('Preferred languages, e.g. ["de-DE"].'),
    })
    .optional()
    .describe('Where the page is read from: language, locale, time zone, geolocation, a proxy of that country.'),
  actions: z
    .array(z.object({ type: z.string() }).passthrough())
    .optional()
    .describe(
      'Browser actions before the scrape, in order: wait, click, write, press, scroll, screenshot, scrape, ' +
        "executeJavascript (Firecrawl's shapes).",
    ),
  blockAds: z.boolean().optional().describe('Refuse ad and tracker requests (true by default).'),
};
export const SCRAPE_OUTPUT = { document, warning: z.string().optional() };

const webResult = z
  .object({ url: z.string(), title: z.string(), description: z.string(), position: z.number() })
  .passthrough();

export const SEARCH_INPUT = {
  query: z.string().min(1).describe('What to search the web for.'),
  limit: z.number().int().min(1).max(100).optional().describe('Number of results (5 by default).'),
  country: z.string().optional().describe('Two-letter country code, e.g. US.'),
  location: z.string().optional().describe('Where the search is made from, e.g. "Berlin,Germany".'),
  tbs: z.string().optional().describe('Time restriction, e.g. qdr:d (past day), qdr:w, qdr:m.'),
  scrapeResults: z.boolean().optional().describe('Also read each result page as markdown.'),
};
export const SEARCH_OUTPUT = { web: z.array(webResult), warning: z.string().optional() };

const place = z.object({
  title: z.string(),
  placeId: z.string(),
  address: z.string(),
  rating: z.number(),
  reviews: z.number(),
  category: z.string(),
  phone: z.string().nullable(),
  website: z.string(),
  latitude: z.number(),
  longitude: z.number(),
  mapsUrl: z.string(),
});

export const MAPS_SEARCH_INPUT = {
  q: z.string().min(1).describe('What to look for on the map, e.g. "coffee in Athens".'),
  ll: z.string().optional().describe('Map position and zoom: @<lat>,<lng>,<zoom>z.'),
  hl: z.string().optional().describe('Language, e.g. en.'),
  num: z.number().int().min(1).max(500).optional().describe('Number of places.'),
};
export const MAPS_SEARCH_OUTPUT = { places: z.array(place) };

export const EXTRACT_INPUT = {
  type: z.enum(['retail', 'place']).describe('retail: a product page; place: a maps place page.'),
  url: z.string().describe('The page to extract a record from.'),
};
export const EXTRACT_OUTPUT = { type: z.enum(['retail', 'place']), record: z.record(z.unknown()) };

const batchStatus = {
  id: z.string(),
  status: z.enum(['scraping', 'completed', 'failed', 'cancelled']),
  completed: z.number(),
  total: z.number(),
  expiresAt: z.string(),
  data: z.array(document),
  warning: z.string().optional(),
};

export const BATCH_SCRAPE_INPUT = {
  urls: z.array(z.string()).min(1).describe('The pages to read.'),
  formats: z
    .array(z.enum(['markdown', 'html']))
    .optional()
    .describe('What to return for each page; markdown by default.'),
  waitSeconds: z
    .number()
    .int()
    .min(0)
    .max(120)
    .optional()
    .describe('Wait up to this long for the batch to finish, reporting progress (0: answer at once with its id).'),
};
export const BATCH_SCRAPE_OUTPUT = batchStatus;

export const BATCH_STATUS_INPUT = { id: z.string().describe('The id batch_scrape answered.') };
export const BATCH_STATUS_OUTPUT = batchStatus;

const crawlNext = z
  .object({ cursor: z.number(), skip: z.number() })
  .describe('Where the next page of documents starts: pass both to crawl_status.');

const crawlStatus = {
  id: z.string(),
  status: z.enum(['scraping', 'completed', 'failed', 'cancelled']),
  completed: z.number(),
  total: z.number(),
  expiresAt: z.string().optional(),
  data: z.array(document),
  next: crawlNext.optional(),
  error: z.string().optional(),
  warning: z.string().optional(),
};

export const CRAWL_INPUT = {
  url: z.string().describe('Where the crawl starts (http or https); its site is the scope.'),
  prompt: z
    .string()
    .min(1)
    .max(CRAWL_PLAN_LIMITS.maxPromptChars)
    .optional()
    .describe(
      'What to crawl, in words: a language model shown the site’s map chooses the options left out here ' +
        '(the server needs one configured).',
    ),
  limit: z.number().int().min(1).optional().describe('Most pages crawled (100 by default).'),
  maxDiscoveryDepth: z.number().int().min(0).optional().describe('Most link hops from the start URL.'),
  includePaths: z.array(z.string()).optional().describe('Path regexes a page must match one of.'),
  excludePaths: z.array(z.string()).optional().describe('Path regexes that exclude a page.'),
  sitemap: z.enum(['include', 'skip', 'only']).optional().describe('Use the sitemaps too, not at all, or only.'),
  allowSubdomains: z.boolean().optional(),
  allowExternalLinks: z.boolean().optional(),
  crawlEntireDomain: z.boolean().optional().describe('Not only the paths under the start URL.'),
  formats: z
    .array(z.enum(['markdown', 'html']))
    .optional()
    .describe('What to keep of each page; markdown by default.'),
  waitSeconds: z
    .number()
    .int()
    .min(0)
    .max(300)
    .optional()
    .describe('Wait up to this long for the crawl to end, reporting progress (0: answer at once with its id).'),
};
export const CRAWL_OUTPUT = crawlStatus;

export const CRAWL_STATUS_INPUT = {
  id: z.string().describe('The id crawl answered.'),
  cursor: z.number().int().min(1).optional().describe('`next.cursor` of the previous answer.'),
  skip: z.number().int().min(0).optional().describe('`next.skip` of the previous answer.'),
};
export const CRAWL_STATUS_OUTPUT = crawlStatus;

export const CRAWL_CANCEL_INPUT = { id: z.string().describe('The id crawl answered.') };
export const CRAWL_CANCEL_OUTPUT = { id: z.string(), status: z.literal('cancelled') };

export const MAP_INPUT = {
  url: z.string().describe('The site to map (http or https).'),
  search: z.string().optional().describe('Only URLs (or titles) with these words, best first.'),
  limit: z.number().int().min(1).optional().describe('Most links (5000 by default).'),
  sitemap: z.enum(['include', 'skip', 'only']).optional(),
  includeSubdomains: z.boolean().optional(),
};
export const MAP_OUTPUT = {
  links: z.array(z.object({ url: z.string(), title: z.string().optional() })),
  warning: z.string().optional(),
};
