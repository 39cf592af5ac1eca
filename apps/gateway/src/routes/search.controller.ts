import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import {
  MapsSearchRequestDto,
  SUBJECTS,
  WebSearchRequestDto,
  type MapsSearchResponse,
  type WebSearchResult,
} from '@trawl/contracts';
import { MessagingClient } from '@trawl/messaging';
import { ApiOperationDoc } from './api-docs.js';

/** Synchronous searches: straight to the extractor over NATS, with the caller's timeout as the deadline. */
@ApiTags('search')
@Controller('extract/search')
export class SearchController {
  constructor(private readonly messaging: MessagingClient) {}

  @Post()
  @HttpCode(200)
  @ApiOperationDoc('Web search', 'Organic results, people also ask, related searches, knowledge panel.')
  search(@Body() body: WebSearchRequestDto): Promise<WebSearchResult> {
    return this.messaging.send(SUBJECTS.searchWeb, body, { timeoutMs: body.timeout });
  }

  @Post('maps')
  @HttpCode(200)
  @ApiOperationDoc('Map-places search')
  maps(@Body() body: MapsSearchRequestDto): Promise<MapsSearchResponse> {
    return this.messaging.send(SUBJECTS.searchMaps, body, { timeoutMs: body.timeout });
  }
}
