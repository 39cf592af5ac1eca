import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { ScrapeRequestDto, SUBJECTS, type ScrapeResult } from '@trawl/contracts';
import { MessagingClient } from '@trawl/messaging';
import { ApiOperationDoc } from './api-docs.js';

@ApiTags('scrape')
@Controller('scrape')
export class ScrapeController {
  constructor(private readonly messaging: MessagingClient) {}

  @Post()
  @HttpCode(200)
  @ApiOperationDoc('Scrape a page', 'Markdown and/or HTML (base64 of the percent-encoded markup) of the page.')
  scrape(@Body() body: ScrapeRequestDto): Promise<ScrapeResult> {
    return this.messaging.send(SUBJECTS.scrapePage, body, { timeoutMs: body.timeout });
  }
}
