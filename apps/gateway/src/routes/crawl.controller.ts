import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import { ApiParam, ApiQuery, ApiTags } from '@nestjs/swagger';
import {
  CRAWL_ID_PATTERN,
  CrawlRequestDto,
  MapRequestDto,
  SUBJECTS,
  TrawlError,
  type CrawlStartReply,
  type CrawlStatusReply,
  type CrawlStatusResult,
  type MapSiteReply,
} from '@trawl/contracts';
import { MessagingClient } from '@trawl/messaging';
import type { AuthenticatedRequest } from '../auth/api-key.guard.js';
import { API_PREFIX } from '../openapi/openapi-document.builder.js';
import { ApiOperationDoc } from './api-operation-doc.decorator.js';

const START_DEADLINE_MS = 10_000;
/** A status read carries a page of documents (up to most of a NATS payload) out of JetStream. */
const STATUS_DEADLINE_MS = 15_000;
/** Answers once the crawl is marked cancelled; pages in flight end on their own. */
const CANCEL_DEADLINE_MS = 10_000;
/** A map's own deadline is its `timeout`; its reply may take this much longer to come back. */
const MAP_REPLY_MARGIN_MS = 2_000;

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
  constructor(private readonly messaging: MessagingClient) {}

  @Post('crawl')
  @HttpCode(200)
  @ApiOperationDoc(
    'Start a crawl',
    'Answers the crawl’s id at once; its pages are scraped by the fleet within the scope asked for, robots.txt obeyed.',
  )
  crawl(@Body() body: CrawlRequestDto, @Req() req: AuthenticatedRequest): Promise<CrawlStartReply> {
    return this.messaging.send(
      SUBJECTS.crawlStart,
      { request: body, ...(req.principal ? { apiKeyId: req.principal.id } : {}) },
      { timeoutMs: START_DEADLINE_MS },
    );
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
    const reply = await this.messaging.send(
      SUBJECTS.crawlGet,
      { id: crawlIdOf(id), apiKeyId: req.principal?.id, ...withCursor(cursorOf(cursor)) },
      { timeoutMs: STATUS_DEADLINE_MS },
    );
    return withNext(reply, req);
  }

  @Delete('crawl/:id')
  @HttpCode(200)
  @ApiParam({ name: 'id', description: 'Crawl id from POST /crawl.' })
  @ApiOperationDoc('Cancel a crawl', 'No new page starts; pages in flight end. Answers the crawl’s status.')
  async cancel(@Param('id') id: string, @Req() req: AuthenticatedRequest): Promise<CrawlStatusResult> {
    const reply = await this.messaging.send(
      SUBJECTS.crawlCancel,
      { id: crawlIdOf(id), apiKeyId: req.principal?.id },
      { timeoutMs: CANCEL_DEADLINE_MS },
    );
    return withNext(reply, req);
  }

  @Post('map')
  @HttpCode(200)
  @ApiOperationDoc(
    'Map a site',
    'The site’s URLs (titles where known) from its sitemaps and its pages’ links, without scraping every page.',
  )
  map(@Body() body: MapRequestDto, @Req() req: AuthenticatedRequest): Promise<MapSiteReply> {
    return this.messaging.send(
      SUBJECTS.mapSite,
      { request: body, ...(req.principal ? { apiKeyId: req.principal.id } : {}) },
      { timeoutMs: body.timeout + MAP_REPLY_MARGIN_MS },
    );
  }
}

function withCursor(cursor: number | undefined): { cursor?: number } {
  return cursor === undefined ? {} : { cursor };
}

function withNext(reply: CrawlStatusReply, req: AuthenticatedRequest): CrawlStatusResult {
  const { cursor, ...rest } = reply;
  const next =
    cursor === null ? null : `${req.protocol}://${req.host}/${API_PREFIX}/crawl/${reply.id}?cursor=${cursor}`;
  return { ...rest, next };
}
