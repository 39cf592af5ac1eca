import { Body, Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import type { AuthenticatedRequest } from '../../auth/api-key.guard.js';
import { NoEnvelope } from '../../envelope/no-envelope.decorator.js';
import { FirecrawlService } from './firecrawl.service.js';

/**
 * Firecrawl's API v1 at the root, as its bundled v1 client and tools pinned to it call it: scrape, search (results
 * as a flat `data` list). Same translations as v2 (ADR 0024).
 */
@ApiExcludeController()
@NoEnvelope()
@Controller('v1')
export class FirecrawlV1Controller {
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
    return { success: true, data: web, ...(warning ? { warning } : {}) };
  }
}
