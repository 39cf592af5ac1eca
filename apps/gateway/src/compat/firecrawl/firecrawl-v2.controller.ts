import { Body, Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import type { AuthenticatedRequest } from '../../auth/api-key.guard.js';
import { NoEnvelope } from '../../envelope/no-envelope.decorator.js';
import { FirecrawlService } from './firecrawl.service.js';

/**
 * Firecrawl's API v2 at the root (`FIRECRAWL_API_URL=http://trawl:8080`): scrape and search. Same keys (Bearer or
 * x-api-key), limits, tenancy and cache as the native routes; answers and errors in Firecrawl's shapes (ADR 0024).
 */
@ApiExcludeController()
@NoEnvelope()
@Controller('v2')
export class FirecrawlV2Controller {
  constructor(private readonly firecrawl: FirecrawlService) {}

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
}
