import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { TrawlError } from '@trawl/contracts';
import { CRAWL_ID_PATTERN } from '@trawl/contracts';
import type { FastifyReply } from 'fastify';
import type { AuthenticatedRequest } from '../../auth/api-key.guard.js';
import { NoEnvelope } from '../../envelope/no-envelope.decorator.js';
import { FirecrawlService } from './firecrawl.service.js';
import { creditUsageV1, queueStatusAnswer, tokenUsageHistorical, tokenUsageV1 } from './firecrawl-usage.mapper.js';
import { FirecrawlBatchService } from './firecrawl-batch.service.js';
import { batchStatusAnswer } from './firecrawl-batch.mapper.js';
import { FirecrawlCrawlService } from './firecrawl-crawl.service.js';
import { crawlPageRefOf, crawlStatusAnswer } from './firecrawl-crawl.mapper.js';
import { idempotencyKeyOf, selfUrl, skipOf } from './firecrawl-request.util.js';

/**
 * Firecrawl's API v1 at the root, as its bundled v1 client and tools pinned to it call it: scrape, search (results
 * as a flat `data` list). Same translations as v2 (ADR 0024).
 */
@ApiExcludeController()
@NoEnvelope()
@Controller('v1')
export class FirecrawlV1Controller {
  constructor(
    private readonly firecrawl: FirecrawlService,
    private readonly batches: FirecrawlBatchService,
    private readonly crawls: FirecrawlCrawlService,
  ) {}

  @Post('scrape')
  @HttpCode(200)
  async scrape(@Body() body: unknown, @Req() req: AuthenticatedRequest, @Res({ passthrough: true }) res: FastifyReply) {
    const { document, warning } = await this.firecrawl.scrape(body, req, res);
    return { success: true, data: document, ...(warning ? { warning } : {}) };
  }

  @Post('search')
  @HttpCode(200)
  async search(@Body() body: unknown, @Req() req: AuthenticatedRequest, @Res({ passthrough: true }) res: FastifyReply) {
    const { web, warning } = await this.firecrawl.search(body, req, res);
    return { success: true, data: web, ...(warning ? { warning } : {}) };
  }

  @Post('batch/scrape')
  @HttpCode(200)
  async startBatch(@Body() body: unknown, @Req() req: AuthenticatedRequest) {
    const { id, invalidURLs, warning } = await this.batches.start(body, req, 'v1', idempotencyKeyOf(req));
    return {
      success: true,
      id,
      url: selfUrl(req, `/v1/batch/scrape/${id}`),
      ...(invalidURLs.length > 0 ? { invalidURLs } : {}),
      ...(warning ? { warning } : {}),
    };
  }

  @Post('crawl')
  @HttpCode(200)
  async startCrawl(@Body() body: unknown, @Req() req: AuthenticatedRequest) {
    const { id, warning } = await this.crawls.start(body, req);
    return { success: true, id, url: selfUrl(req, `/v1/crawl/${id}`), ...(warning ? { warning } : {}) };
  }

  // The bundled v1 client polls a batch where it polls a crawl: a crawl id (32 hex digits) is a crawl's, any other
  // a batch's (a UUID), so both resolve here.
  @Get(['batch/scrape/:id', 'crawl/:id'])
  async batchStatus(@Param('id') id: string, @Req() req: AuthenticatedRequest) {
    const self = selfUrl(req, req.url.split('?', 1)[0] ?? '');
    if (CRAWL_ID_PATTERN.test(id)) {
      return crawlStatusAnswer(await this.crawls.status(id, req, crawlPageRefOf(req.query)), self);
    }
    return batchStatusAnswer(await this.batches.status(id, req, skipOf(req.query)), self);
  }

  @Delete(['batch/scrape/:id', 'crawl/:id'])
  async cancelBatch(@Param('id') id: string, @Req() req: AuthenticatedRequest) {
    if (CRAWL_ID_PATTERN.test(id)) await this.crawls.cancel(id, req);
    else await this.batches.cancel(id, req);
    return { success: true, status: 'cancelled' };
  }

  @Post('map')
  @HttpCode(200)
  async map(@Body() body: unknown, @Req() req: AuthenticatedRequest) {
    const { links, warning } = await this.crawls.map(body, req, 'v1');
    return { success: true, links, ...(warning ? { warning } : {}) };
  }

  // As for the status: a crawl id's errors are the crawl's, any other id's a batch's.
  @Get(['batch/scrape/:id/errors', 'crawl/:id/errors'])
  async batchErrors(@Param('id') id: string, @Req() req: AuthenticatedRequest) {
    if (CRAWL_ID_PATTERN.test(id)) return { success: true, ...(await this.crawls.errors(id, req)) };
    return { success: true, ...(await this.batches.errors(id, req)) };
  }

  @Get('crawl/active')
  async activeCrawls(@Req() req: AuthenticatedRequest) {
    return { success: true, crawls: await this.crawls.active(req) };
  }

  /** Firecrawl's token usage (ADR 0040): the key's language-model tokens of this calendar month and its budget. */
  @Get('team/token-usage')
  async tokenUsage(@Req() req: AuthenticatedRequest) {
    return tokenUsageV1(await this.firecrawl.tokenUsage(req, 1));
  }

  /** The key's tokens per month, a year back; `byApiKey=true` names the key (its id) in each period. */
  @Get('team/token-usage/historical')
  async tokenUsageHistorical(@Req() req: AuthenticatedRequest, @Query('byApiKey') byApiKey: string | undefined) {
    const usage = await this.firecrawl.tokenUsage(req, 12);
    return tokenUsageHistorical(usage, byApiKey === 'true' ? req.principal?.id : undefined);
  }

  /** Firecrawl's credit usage (ADR 0041): no cap (Trawl meters no credits), this calendar month. */
  @Get('team/credit-usage')
  creditUsage() {
    return creditUsageV1(new Date());
  }

  /** Not served: Trawl counts no credits to report per month (ADR 0041); said in Firecrawl's error form. */
  @Get('team/credit-usage/historical')
  creditUsageHistorical(): never {
    throw new TrawlError(
      'NOT_FOUND',
      'Trawl meters no credits, so it has no credit usage per month; GET /v1/team/token-usage/historical reports the tokens of the json and summary formats',
    );
  }

  /** Firecrawl's queue status (ADR 0041): the key's outstanding jobs, running and waiting, its last success. */
  @Get('team/queue-status')
  async queueStatus(@Req() req: AuthenticatedRequest) {
    return queueStatusAnswer(await this.firecrawl.queueUsage(req));
  }
}
