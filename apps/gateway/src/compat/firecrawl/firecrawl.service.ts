import { Injectable } from '@nestjs/common';
import { TrawlError, type KeyQueueUsage, type LlmTokensUsage } from '@trawl/contracts';
import type { FastifyReply } from 'fastify';
import type { AuthenticatedRequest } from '../../auth/api-key.guard.js';
import { toErrorEnvelope } from '../../envelope/error-envelope.mapper.js';
import { NativeOperations } from '../native-operations.service.js';
import { fromNativeScrape, toNativeScrape, warningOf, type FirecrawlDocument } from './firecrawl-scrape.mapper.js';
import { fromNativeSearch, toNativeSearch, type FirecrawlWebResult } from './firecrawl-search.mapper.js';

/** Search results scraped at once when `scrapeOptions` asks for content. */
const SEARCH_SCRAPE_CONCURRENCY = 5;

function bodyOf(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new TrawlError('VALIDATION_FAILED', 'request body must be a JSON object', { field: 'body' });
  }
  return body as Record<string, unknown>;
}

/**
 * Firecrawl's scrape and search as translations of the native operations: the body through the tables
 * (firecrawl.constants.ts) onto a native request, the native answer back into Firecrawl's document.
 */
@Injectable()
export class FirecrawlService {
  constructor(private readonly native: NativeOperations) {}

  async scrape(
    input: unknown,
    req: AuthenticatedRequest,
    res: FastifyReply,
  ): Promise<{ document: FirecrawlDocument; warning?: string }> {
    const body = bodyOf(input);
    const mapping = toNativeScrape(body);
    const result = await this.native.scrape({ ...mapping.native, url: body.url }, req, res);
    return { document: fromNativeScrape(result, mapping), ...warningOf(mapping.warnings) };
  }

  async search(
    input: unknown,
    req: AuthenticatedRequest,
    res: FastifyReply,
  ): Promise<{ web: FirecrawlWebResult[]; warning?: string }> {
    const body = bodyOf(input);
    const mapping = toNativeSearch(body);
    const result = await this.native.search(mapping.native, req, res);
    const web = fromNativeSearch(result, mapping.limit);
    const warnings = [...mapping.warnings];
    if (mapping.scrapeOptions) {
      const scrape = toNativeScrape(mapping.scrapeOptions, 'scrapeOptions.');
      warnings.push(...scrape.warnings);
      await inLanes(web, SEARCH_SCRAPE_CONCURRENCY, async (item) => {
        try {
          const doc = fromNativeScrape(await this.native.scrape({ ...scrape.native, url: item.url }, req, res), {
            ...scrape,
            warnings: [],
          });
          Object.assign(item, doc);
        } catch (e) {
          // One result that could not be read does not fail the search: it says why in its metadata.
          const { body: envelope } = toErrorEnvelope(e, '');
          item.metadata = { sourceURL: item.url, url: item.url, statusCode: 0, error: envelope.message };
        }
      });
    }
    return { web, ...warningOf(warnings) };
  }

  /** The key's language-model tokens (ADR 0040), for Firecrawl's token-usage routes. */
  tokenUsage(req: AuthenticatedRequest, months: number): Promise<LlmTokensUsage> {
    return this.native.tokenUsage(req, months);
  }

  /** The key's jobs and requests in flight (ADR 0041), for Firecrawl's queue status. */
  queueUsage(req: AuthenticatedRequest): Promise<KeyQueueUsage> {
    return this.native.queueUsage(req);
  }

  /** The key's other requests in flight and its limit, for Firecrawl's concurrency check. */
  requestsInFlight(req: AuthenticatedRequest): Promise<KeyQueueUsage['requests']> {
    return this.native.requestsInFlight(req);
  }
}

/** Runs `fn` on every item, at most `lanes` at once. */
async function inLanes<T>(items: readonly T[], lanes: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) await fn(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(lanes, items.length) }, lane));
}
