import * as s from '../schema/json-schema.builder.js';
import { REPLAYED } from './maps-result.schema.js';

/** The Twitter card fields keep their own names (`twitter:card`, `twitter:title` ...), as Firecrawl returns them. */
export interface TwitterCardFields {
  [twitter: `twitter:${string}`]: string | undefined;
}

/**
 * `metadata` of a scrape, with Firecrawl's names (ADR 0023): the document's own fields (absent when the page does not
 * carry them), and what the scrape saw.
 */
const SCRAPE_METADATA = s.looseWith<TwitterCardFields>()(
  s.object({
    /** The document's title ('' when it has none). */
    title: s.str(),
    url: s.str('Final URL after redirects.'),
    /** Always set by extractor-scrape; optional for results made before ADR 0023. */
    sourceURL: s.optional(s.str('The URL asked for (absent from results stored before it was added).')),
    /** HTTP status of the page's main response (always set by extractor-scrape, as `sourceURL`). */
    statusCode: s.optional(s.int('HTTP status of the page (absent from results stored before it was added).')),
    engine: s.enumOf(['browser', 'http']),
    contentType: s.nullable(s.str()),
    /** Requests the page made that `blockAds` refused; present when the browser rendered it so. */
    adsBlocked: s.optional(s.int('Requests to ads and trackers refused (`blockAds`, browser engine).')),
    /** The page's `Retry-After` header as served, when it answered 429 or 503 with one: when to ask it again. */
    retryAfter: s.optional(
      s.str("The page's `Retry-After` header (seconds or an HTTP date), when it answered 429 or 503 with one."),
    ),
    description: s.optional(s.str()),
    language: s.optional(s.str("The root element's `lang`.")),
    keywords: s.optional(s.str()),
    robots: s.optional(s.str()),
    canonical: s.optional(s.str('The `rel=canonical` link, absolute.')),
    favicon: s.optional(s.str()),
    ogTitle: s.optional(s.str()),
    ogDescription: s.optional(s.str()),
    ogUrl: s.optional(s.str()),
    ogImage: s.optional(s.str()),
    ogSiteName: s.optional(s.str()),
    ogLocale: s.optional(s.str()),
    ogType: s.optional(s.str()),
    ogAudio: s.optional(s.str()),
    ogVideo: s.optional(s.str()),
    ogDeterminer: s.optional(s.str()),
  }),
);
export type ScrapeMetadata = s.Infer<typeof SCRAPE_METADATA>;
/** What the document says about itself (the page's own fields), each absent when the page does not carry it. */
export type ScrapeMetadataFields = Partial<
  Omit<ScrapeMetadata, 'url' | 'sourceURL' | 'statusCode' | 'engine' | 'contentType' | 'adsBlocked' | 'retryAfter'>
>;

/** `actions` of a scrape's answer: what the actions produced, in the order they ran (Firecrawl's shape). */
const SCRAPE_ACTIONS_RESULT = s.object({
  /** One per `screenshot` action: a data URL (`data:image/png;base64,…` or `image/jpeg`). */
  screenshots: s.arr(s.str('A data URL per screenshot action.')),
  /** One per `scrape` action: the page's URL and rendered HTML at that moment. */
  scrapes: s.arr(s.object({ url: s.str(), html: s.str('Rendered HTML at that moment.') })),
  /** One per `executeJavascript` action: the type and the JSON value of what the script returned. */
  javascriptReturns: s.arr(s.object({ type: s.str(), value: s.anyValue('The JSON value.') })),
});
export type ScrapeActionsResult = s.Infer<typeof SCRAPE_ACTIONS_RESULT>;

/** `data` of POST /scrape. */
export const SCRAPE_RESULT = s.named(
  'ScrapeResult',
  s.object({
    sourceURL: s.str(),
    taskId: s.str(`The scrape's id.${REPLAYED}`),
    /** The instance that served the scrape (hostname and process). */
    edgeId: s.str(`The instance that served the scrape.${REPLAYED}`),
    /** HTTP-like status of the task. */
    status: s.int('200 when the scrape completed.'),
    rawStatus: s.int('HTTP status of the scraped page.'),
    /** base64 of the percent-encoded page markup (as the spec's sample). */
    html: s.optional(s.str('base64 of the percent-encoded markup; present when `html` was asked for.')),
    /** With `onlyMainContent` (ADR 0023) `includeTags` / `excludeTags` are applied first. */
    markdown: s.optional(
      s.str(
        'Present when `markdown` was asked for: the main content (`onlyMainContent`, default true), else the whole page.',
      ),
    ),
    /** The document as served (http) or as the browser's main response carried it. */
    rawHtml: s.optional(s.str('The document as served; present when `rawHtml` was asked for.')),
    screenshot: s.optional(s.str('Present when a screenshot was asked for: a data URL, PNG (JPEG with `quality`).')),
    json: s.optional(
      s.loose(
        s.anyObject(
          'Present when the `json` format was asked for: the object the language model read out of the page, valid ' +
            'against the format’s `schema` (ADR 0029).',
        ),
      ),
    ),
    summary: s.optional(
      s.str('Present when `summary` was asked for: the language model’s summary of the main content (ADR 0029).'),
    ),
    /** What the request's `actions` produced (present when it had actions). */
    actions: s.optional(SCRAPE_ACTIONS_RESULT),
    links: s.optional(
      s.described(
        s.arr(s.str()),
        'Every link of the page, absolute, once each, in page order; present when `links` was asked for.',
      ),
    ),
    metadata: SCRAPE_METADATA,
  }),
);
export type ScrapeResult = s.Infer<typeof SCRAPE_RESULT>;
export { SCRAPE_METADATA };

/** Decodes the `html` field: base64, then percent-decoding. */
export function decodeScrapeHtml(html: string): string {
  return decodeURIComponent(Buffer.from(html, 'base64').toString('utf8'));
}

export function encodeScrapeHtml(markup: string): string {
  return Buffer.from(encodeURIComponent(markup), 'utf8').toString('base64');
}
