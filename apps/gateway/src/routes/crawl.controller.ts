import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import { ApiParam, ApiQuery, ApiTags } from '@nestjs/swagger';
import {
  CRAWL_ID_PATTERN,
  CrawlPlanBodyDto,
  CrawlRequestDto,
  MapRequestDto,
  TrawlError,
  type ActiveCrawlsResult,
  type CrawlErrorsResult,
  type CrawlPlan,
  type CrawlStartReply,
  type CrawlStatusReply,
  type CrawlStatusResult,
  type MapSiteReply,
} from '@trawl/contracts';
import type { AuthenticatedRequest } from '../auth/api-key.guard.js';
import { NativeOperations } from '../compat/native-operations.service.js';
import { API_PREFIX } from '../openapi/openapi-document.builder.js';
import { ApiOperationDoc } from './api-operation-doc.decorator.js';

function crawlIdOf(id: string): string {
  if (!CRAWL_ID_PATTERN.test(id)) {
    throw new TrawlError('VALIDATION_FAILED', 'id must be a crawl id (32 hex digits)', { field: 'id' });
  }
  return id;
}

function cursorOf(cursor: string | undefined): number | undefined {
  if (cursor === undefined) return undefined;
  if (!/^[1-9][0-9]{0,14}$/.test(cursor)) {
    throw new TrawlError('VALIDATION_FAILED', 'cursor must be a positive integer', { field: 'cursor' });
  }
  return Number(cursor);
}

/**
 * Crawls and maps (ADR 0026): forwarded to task-service, which owns a crawl's state. `next` of a status is a URL of
 * this server (the same host and scheme the caller used) while more documents remain.
 */
@ApiTags('crawl')
@Controller()
export class CrawlController {
  constructor(private readonly operations: NativeOperations) {}

  @Post('crawl')
  @HttpCode(200)
  @ApiOperationDoc(
    'Start a crawl',
    'Answers the crawl’s id at once; its pages are scraped by the fleet within the scope asked for, robots.txt obeyed.',
  )
  crawl(@Body() _validated: CrawlRequestDto, @Req() req: AuthenticatedRequest): Promise<CrawlStartReply> {
    // The pipe has checked the body (and documents it); NativeOperations takes it as sent, before defaults, and checks
    // it again (the peers' routes give it plain objects; crawls are few): with a prompt, what the caller gave is what
    // the plan may not change (ADR 0042).
    return this.operations.crawlStart(req.body as Record<string, unknown>, req);
  }

  @Post('crawl/plan')
  @HttpCode(200)
  @ApiOperationDoc(
    'Plan a crawl from a prompt',
    'The options a crawl from `url` would take for `prompt`, chosen by the language model from the site’s map ' +
      '(ADR 0042); nothing is crawled. Firecrawl’s params preview. Refused with 400 when no model is configured.',
  )
  plan(@Body() body: CrawlPlanBodyDto, @Req() req: AuthenticatedRequest): Promise<CrawlPlan> {
    return this.operations.crawlPlan({ ...body }, req);
  }

  @Get('crawl/active')
  @ApiOperationDoc(
    'The key’s running crawls',
    'Each crawl the calling key started that is still scraping, oldest first, with its start URL and options.',
  )
  active(@Req() req: AuthenticatedRequest): Promise<ActiveCrawlsResult> {
    return this.operations.crawlActive(req);
  }

  @Get('crawl/:id/errors')
  @ApiParam({ name: 'id', description: 'Crawl id from POST /crawl.' })
  @ApiOperationDoc(
    'A crawl’s errors',
    'The pages that ended in an error (URL, code, message, when) and the URLs robots.txt kept the crawl from; ' +
      'also after the crawl ended, for as long as its status is kept. Only the key that started it finds it.',
  )
  errors(@Param('id') id: string, @Req() req: AuthenticatedRequest): Promise<CrawlErrorsResult> {
    return this.operations.crawlErrors(crawlIdOf(id), req);
  }

  @Get('crawl/:id')
  @ApiParam({ name: 'id', description: 'Crawl id from POST /crawl.' })
  @ApiQuery({ name: 'cursor', required: false, description: 'Where the page of documents starts (from `next`).' })
  @ApiOperationDoc(
    'A crawl’s status and documents',
    'One page of documents (as /scrape returns them); `next` is the URL of the next page while more remain. Only ' +
      'the key that started the crawl finds it; any other key gets 404.',
  )
  async status(
    @Param('id') id: string,
    @Query('cursor') cursor: string | undefined,
    @Req() req: AuthenticatedRequest,
  ): Promise<CrawlStatusResult> {
    return withNext(await this.operations.crawlGet(crawlIdOf(id), req, cursorOf(cursor)), req);
  }

  @Delete('crawl/:id')
  @HttpCode(200)
  @ApiParam({ name: 'id', description: 'Crawl id from POST /crawl.' })
  @ApiOperationDoc(
    'Cancel a crawl',
    'No new page starts; pages in flight are abandoned (their scrapes stopped). Answers the crawl’s status.',
  )
  async cancel(@Param('id') id: string, @Req() req: AuthenticatedRequest): Promise<CrawlStatusResult> {
    return withNext(await this.operations.crawlCancel(crawlIdOf(id), req), req);
  }

  @Post('map')
  @HttpCode(200)
  @ApiOperationDoc(
    'Map a site',
    'The site’s URLs (titles where known) from its sitemaps and its pages’ links, without scraping every page.',
  )
  map(@Body() body: MapRequestDto, @Req() req: AuthenticatedRequest): Promise<MapSiteReply> {
    return this.operations.map({ ...body }, req);
  }
}

function withNext(reply: CrawlStatusReply, req: AuthenticatedRequest): CrawlStatusResult {
  const { cursor, ...rest } = reply;
  const next =
    cursor === null ? null : `${req.protocol}://${req.host}/${API_PREFIX}/crawl/${reply.id}?cursor=${cursor}`;
  return { ...rest, next };
}
