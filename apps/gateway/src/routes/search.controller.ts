import { Body, Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import {
  MapsSearchRequestDto,
  WebSearchRequestDto,
  type MapsSearchResponse,
  type WebSearchResult,
} from '@trawl/contracts';
import type { FastifyReply } from 'fastify';
import type { AuthenticatedRequest } from '../auth/api-key.guard.js';
import { NativeOperations } from '../compat/native-operations.service.js';
import type { RawJson } from '../validation/raw-json.serializer.js';
import { ApiOperationDoc } from './api-operation-doc.decorator.js';

/**
 * Synchronous searches: straight to the extractor over NATS, with the caller's timeout as the deadline, or from the
 * result cache when a stored answer is younger than `maxAge`.
 */
@ApiTags('search')
@Controller('extract/search')
export class SearchController {
  constructor(private readonly operations: NativeOperations) {}

  @Post()
  @HttpCode(200)
  @ApiOperationDoc('Web search', 'Organic results, people also ask, related searches, knowledge panel.')
  search(
    @Body() body: WebSearchRequestDto,
    @Req() req: AuthenticatedRequest,
    @Res({ passthrough: true }) res: FastifyReply,
  ): Promise<WebSearchResult | RawJson> {
    // The extractor's reply goes into the envelope as the JSON text it came in (RawJson) unless the cache is asked.
    return this.operations.searchForRoute(body, req, res);
  }

  @Post('maps')
  @HttpCode(200)
  @ApiOperationDoc('Map-places search')
  maps(
    @Body() body: MapsSearchRequestDto,
    @Req() req: AuthenticatedRequest,
    @Res({ passthrough: true }) res: FastifyReply,
  ): Promise<MapsSearchResponse> {
    return this.operations.mapsValidated(body, req, res);
  }
}
