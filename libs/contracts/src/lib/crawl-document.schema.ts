import { TrawlError } from './error-codes.constants.js';
import { SCRAPE_METADATA, SCRAPE_RESULT } from './results/scrape-result.schema.js';
import * as s from './schema/json-schema.builder.js';

/** One page of a crawl: what POST /scrape answers for it, with the URL the crawl asked for and the page's status set. */
export const CRAWL_DOCUMENT = s.named(
  'CrawlDocument',
  s.extend(SCRAPE_RESULT, {
    metadata: s.extend(SCRAPE_METADATA, {
      sourceURL: s.str('The URL the crawl found and asked for (normalised).'),
      statusCode: s.int('HTTP status of the page.'),
    }),
  }),
);
export type CrawlDocument = s.Infer<typeof CRAWL_DOCUMENT>;

/**
 * Checks a message of the crawl documents stream (`crawl.document.v1.<id>`) where it is read back: an object whose
 * `metadata` carries the URL the crawl asked for and the page's status (the rest is POST /scrape's result, made by
 * the extractor and stored as it came). Throws VALIDATION_FAILED naming the bad field.
 */
export function parseCrawlDocument(input: unknown): CrawlDocument {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new TrawlError('VALIDATION_FAILED', 'a crawl document must be an object', { field: 'body' });
  }
  const metadata = (input as { metadata?: unknown }).metadata;
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) {
    throw new TrawlError('VALIDATION_FAILED', 'metadata must be an object', { field: 'metadata' });
  }
  const m = metadata as Record<string, unknown>;
  if (typeof m.sourceURL !== 'string') {
    throw new TrawlError('VALIDATION_FAILED', 'metadata.sourceURL must be a string', { field: 'metadata.sourceURL' });
  }
  if (typeof m.statusCode !== 'number' || !Number.isInteger(m.statusCode)) {
    throw new TrawlError('VALIDATION_FAILED', 'metadata.statusCode must be an integer', {
      field: 'metadata.statusCode',
    });
  }
  return input as CrawlDocument;
}
