import { Body, Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { ScrapeRequestDto, type ScrapeResult } from '@trawl/contracts';
import type { FastifyReply } from 'fastify';
import type { AuthenticatedRequest } from '../auth/api-key.guard.js';
import { NativeOperations } from '../compat/native-operations.service.js';
import { ApiOperationDoc } from './api-operation-doc.decorator.js';

@ApiTags('scrape')
@Controller('scrape')
export class ScrapeController {
  constructor(private readonly operations: NativeOperations) {}

  @Post()
  @HttpCode(200)
  @ApiOperationDoc('Scrape a page', 'Markdown and/or HTML (base64 of the percent-encoded markup) of the page.')
  scrape(
    @Body() body: ScrapeRequestDto,
    @Req() req: AuthenticatedRequest,
    @Res({ passthrough: true }) res: FastifyReply,
  ): Promise<ScrapeResult> {
    return this.operations.scrapeValidated(body, req, res);
  }
}
