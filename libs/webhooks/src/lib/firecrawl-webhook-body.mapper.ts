import { decodeScrapeHtml, type BatchWebhookEvent, type CrawlDocument, type CrawlWebhookEvent } from '@trawl/contracts';

/**
 * A crawl's document as Firecrawl's webhooks carry it: its formats (html as markup, not the native base64) and
 * Firecrawl's metadata (title, sourceURL: the URL the crawl asked for, url, statusCode; the engine left out).
 */
export function firecrawlDocumentOf(doc: CrawlDocument): Record<string, unknown> {
  const { markdown, html, rawHtml, links, metadata } = doc as CrawlDocument & { rawHtml?: string; links?: unknown };
  const { engine: _engine, ...meta } = metadata as CrawlDocument['metadata'] & { engine?: unknown };
  void _engine;
  return {
    ...(markdown !== undefined ? { markdown } : {}),
    ...(html !== undefined ? { html: decodeScrapeHtml(html) } : {}),
    ...(rawHtml !== undefined ? { rawHtml } : {}),
    ...(links !== undefined ? { links } : {}),
    metadata: { ...meta, sourceURL: metadata.sourceURL, statusCode: metadata.statusCode },
  };
}

/**
 * Firecrawl's webhook body of a crawl event (ADR 0028): `{ success, type, id, data, metadata, error? }`, `type` the
 * event's name (crawl.started, crawl.page, crawl.completed, crawl.failed), `data` the page's documents (empty for the
 * others), `metadata` the crawl's webhook metadata as given.
 */
export function firecrawlWebhookBody(event: CrawlWebhookEvent | BatchWebhookEvent): Record<string, unknown> {
  if ('batch' in event) return firecrawlBatchWebhookBody(event);
  const failed = event.event === 'crawl.failed';
  return {
    success: !failed,
    type: event.event,
    id: event.crawl.id,
    data: (event.crawl.data ?? []).map(firecrawlDocumentOf),
    metadata: event.metadata ?? {},
    ...(failed ? { error: event.crawl.error?.message ?? 'the crawl failed' } : {}),
  };
}

/**
 * Firecrawl's webhook body of a URL batch event (ADR 0028), as a crawl's: `type` batch_scrape.started, .page or
 * .completed, `data` the page's document (mapped as a crawl page's), and on a page that failed `success: false` and
 * its `error`.
 */
function firecrawlBatchWebhookBody(event: BatchWebhookEvent): Record<string, unknown> {
  const error = event.batch.error;
  return {
    success: error === undefined,
    type: event.event,
    id: event.batch.id,
    data: (event.batch.data ?? []).map(firecrawlDocumentOf),
    metadata: event.metadata ?? {},
    ...(error ? { error: error.message } : {}),
  };
}
