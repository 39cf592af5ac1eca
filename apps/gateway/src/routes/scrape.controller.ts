import { Body, Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { scrapePageRequest, ScrapeRequestDto, SUBJECTS, type ScrapeResult } from '@trawl/contracts';
import { MessagingClient } from '@trawl/messaging';
import type { FastifyReply } from 'fastify';
import { ResultCacheService } from '../cache/result-cache.service.js';
import type { AuthenticatedRequest } from '../auth/api-key.guard.js';
import { ApiOperationDoc } from './api-operation-doc.decorator.js';

@ApiTags('scrape')
@Controller('scrape')
export class ScrapeController {
  constructor(
    private readonly messaging: MessagingClient,
    private readonly cache: ResultCacheService,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiOperationDoc('Scrape a page', 'Markdown and/or HTML (base64 of the percent-encoded markup) of the page.')
  scrape(
    @Body() body: ScrapeRequestDto,
    @Req() req: AuthenticatedRequest,
    @Res({ passthrough: true }) res: FastifyReply,
  ): Promise<ScrapeResult> {
    const { maxAge, storeInCache, ...request } = body;
    // The tenant is the key the guard authenticated (the body cannot name one: unknown fields are refused).
    return this.cache.serve('scrape', req, res, request, { maxAge, storeInCache }, () =>
      this.messaging.send(SUBJECTS.scrapePage, scrapePageRequest(request, req.principal?.id), {
        timeoutMs: body.timeout,
      }),
    );
  }
}
