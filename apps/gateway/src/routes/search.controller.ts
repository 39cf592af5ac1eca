import { Body, Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import {
  MapsSearchRequestDto,
  SUBJECTS,
  WebSearchRequestDto,
  type MapsSearchResponse,
  type WebSearchResult,
} from '@trawl/contracts';
import { MessagingClient } from '@trawl/messaging';
import type { FastifyReply } from 'fastify';
import { ResultCacheService } from '../cache/result-cache.service.js';
import type { AuthenticatedRequest } from '../auth/api-key.guard.js';
import { ApiOperationDoc } from './api-operation-doc.decorator.js';

/**
 * Synchronous searches: straight to the extractor over NATS, with the caller's timeout as the deadline, or from the
 * result cache when a stored answer is younger than `maxAge`.
 */
@ApiTags('search')
@Controller('extract/search')
export class SearchController {
  constructor(
    private readonly messaging: MessagingClient,
    private readonly cache: ResultCacheService,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiOperationDoc('Web search', 'Organic results, people also ask, related searches, knowledge panel.')
  search(
    @Body() body: WebSearchRequestDto,
    @Req() req: AuthenticatedRequest,
    @Res({ passthrough: true }) res: FastifyReply,
  ): Promise<WebSearchResult> {
    const { maxAge, storeInCache, ...request } = body;
    return this.cache.serve('search', req, res, request, { maxAge, storeInCache }, () =>
      this.messaging.send(SUBJECTS.searchWeb, request, { timeoutMs: body.timeout }),
    );
  }

  @Post('maps')
  @HttpCode(200)
  @ApiOperationDoc('Map-places search')
  maps(
    @Body() body: MapsSearchRequestDto,
    @Req() req: AuthenticatedRequest,
    @Res({ passthrough: true }) res: FastifyReply,
  ): Promise<MapsSearchResponse> {
    const { maxAge, storeInCache, ...request } = body;
    return this.cache.serve('maps', req, res, request, { maxAge, storeInCache }, () =>
      this.messaging.send(SUBJECTS.searchMaps, request, { timeoutMs: body.timeout }),
    );
  }
}
