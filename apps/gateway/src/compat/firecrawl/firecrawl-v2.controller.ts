import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { TrawlError } from '@trawl/contracts';
import type { FastifyReply } from 'fastify';
import type { AuthenticatedRequest } from '../../auth/api-key.guard.js';
import { NoEnvelope } from '../../envelope/no-envelope.decorator.js';
import { FirecrawlService } from './firecrawl.service.js';
import {
  concurrencyAnswer,
  creditUsageV2,
  queueStatusAnswer,
  tokenUsageHistorical,
  tokenUsageV2,
} from './firecrawl-usage.mapper.js';
import { FirecrawlBatchService } from './firecrawl-batch.service.js';
import { batchStatusAnswer } from './firecrawl-batch.mapper.js';
import { FirecrawlCrawlService } from './firecrawl-crawl.service.js';
import { crawlPageRefOf, crawlStatusAnswer } from './firecrawl-crawl.mapper.js';
import { idempotencyKeyOf, selfUrl, skipOf } from './firecrawl-request.util.js';

/**
 * Firecrawl's API v2 at the root (`FIRECRAWL_API_URL=http://trawl:8080`): scrape and search. Same keys (Bearer or
 * x-api-key), limits, tenancy and cache as the native routes; answers and errors in Firecrawl's shapes (ADR 0024).
 */
@ApiExcludeController()
@NoEnvelope()
@Controller('v2')
export class FirecrawlV2Controller {
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
    return { success: true, data: { web }, ...(warning ? { warning } : {}) };
  }

  @Post('batch/scrape')
  @HttpCode(200)
  async startBatch(@Body() body: unknown, @Req() req: AuthenticatedRequest) {
    const { id, invalidURLs, warning } = await this.batches.start(body, req, 'v2', idempotencyKeyOf(req));
    return {
      success: true,
      id,
      url: selfUrl(req, `/v2/batch/scrape/${id}`),
      ...(invalidURLs.length > 0 ? { invalidURLs } : {}),
      ...(warning ? { warning } : {}),
    };
  }

  @Get('batch/scrape/:id')
  async batchStatus(@Param('id') id: string, @Req() req: AuthenticatedRequest) {
    const status = await this.batches.status(id, req, skipOf(req.query));
    return batchStatusAnswer(status, selfUrl(req, req.url.split('?', 1)[0] ?? ''));
  }

  @Delete('batch/scrape/:id')
  async cancelBatch(@Param('id') id: string, @Req() req: AuthenticatedRequest) {
    await this.batches.cancel(id, req);
    return { success: true, status: 'cancelled' };
  }

  @Get('batch/scrape/:id/errors')
  async batchErrors(@Param('id') id: string, @Req() req: AuthenticatedRequest) {
    return { success: true, ...(await this.batches.errors(id, req)) };
  }

  @Post('crawl')
  @HttpCode(200)
  async startCrawl(@Body() body: unknown, @Req() req: AuthenticatedRequest) {
    const { id, warning, ...planned } = await this.crawls.start(body, req);
    return { success: true, id, url: selfUrl(req, `/v2/crawl/${id}`), ...planned, ...(warning ? { warning } : {}) };
  }

  @Post('crawl/params-preview')
  @HttpCode(200)
  async crawlParamsPreview(@Body() body: unknown, @Req() req: AuthenticatedRequest) {
    const { data, warning } = await this.crawls.preview(body, req);
    return { success: true, data, ...(warning ? { warning } : {}) };
  }

  @Get('crawl/active')
  async activeCrawls(@Req() req: AuthenticatedRequest) {
    return { success: true, crawls: await this.crawls.active(req) };
  }

  @Get('crawl/:id/errors')
  async crawlErrors(@Param('id') id: string, @Req() req: AuthenticatedRequest) {
    return { success: true, ...(await this.crawls.errors(id, req)) };
  }

  @Get('crawl/:id')
  async crawlStatus(@Param('id') id: string, @Req() req: AuthenticatedRequest) {
    const status = await this.crawls.status(id, req, crawlPageRefOf(req.query));
    return crawlStatusAnswer(status, selfUrl(req, req.url.split('?', 1)[0] ?? ''));
  }

  @Delete('crawl/:id')
  async cancelCrawl(@Param('id') id: string, @Req() req: AuthenticatedRequest) {
    await this.crawls.cancel(id, req);
    return { success: true, status: 'cancelled' };
  }

  @Post('map')
  @HttpCode(200)
  async map(@Body() body: unknown, @Req() req: AuthenticatedRequest) {
    const { links, warning } = await this.crawls.map(body, req, 'v2');
    return { success: true, links, ...(warning ? { warning } : {}) };
  }

  /** Firecrawl's token usage (ADR 0040): the key's language-model tokens of this calendar month and its budget. */
  @Get('team/token-usage')
  async tokenUsage(@Req() req: AuthenticatedRequest) {
    return tokenUsageV2(await this.firecrawl.tokenUsage(req, 1));
  }

  /** The key's tokens per month, a year back; `byApiKey=true` names the key (its id) in each period. */
  @Get('team/token-usage/historical')
  async tokenUsageHistorical(@Req() req: AuthenticatedRequest, @Query('byApiKey') byApiKey: string | undefined) {
    const usage = await this.firecrawl.tokenUsage(req, 12);
    return tokenUsageHistorical(usage, byApiKey === 'true' ? req.principal?.id : undefined);
  }

  /**
   * Firecrawl's credit usage (ADR 0041): Trawl meters no credits, so no cap, over this calendar month. The historical
   * view is not served: there is no count of credits to report.
   */
  @Get('team/credit-usage')
  creditUsage() {
    return creditUsageV2(new Date());
  }

  /** Not served: Trawl counts no credits to report per month (ADR 0041); said in Firecrawl's error form. */
  @Get('team/credit-usage/historical')
  creditUsageHistorical(): never {
    throw new TrawlError(
      'NOT_FOUND',
      'Trawl meters no credits, so it has no credit usage per month; GET /v2/team/token-usage/historical reports the tokens of the json and summary formats',
    );
  }

  /** Firecrawl's queue status (ADR 0041): the key's outstanding jobs, running and waiting, its last success. */
  @Get('team/queue-status')
  async queueStatus(@Req() req: AuthenticatedRequest) {
    return queueStatusAnswer(await this.firecrawl.queueUsage(req));
  }

  /** Firecrawl's concurrency check (ADR 0041): the key's other requests in flight against its concurrency limit. */
  @Get('concurrency-check')
  async concurrencyCheck(@Req() req: AuthenticatedRequest) {
    return concurrencyAnswer(await this.firecrawl.requestsInFlight(req));
  }
}
