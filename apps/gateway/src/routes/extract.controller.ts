import { randomUUID } from 'node:crypto';
import { Body, Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import {
  appendUrlParams,
  ExtractRequestDto,
  extractUrlCall,
  type ExtractRecordByType,
  type ExtractResponse,
  type ExtractType,
} from '@trawl/contracts';
import { MessagingClient } from '@trawl/messaging';
import type { FastifyReply } from 'fastify';
import { ResultCacheService } from '../cache/result-cache.service.js';
import type { AuthenticatedRequest } from '../auth/api-key.guard.js';
import { ApiOperationDoc } from './api-operation-doc.decorator.js';

/** POST /extract: one URL of a given type, synchronously, routed to the extractor that owns the type. */
@ApiTags('extract')
@Controller('extract')
export class ExtractController {
  constructor(
    private readonly messaging: MessagingClient,
    private readonly cache: ResultCacheService,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiOperationDoc('Extract a structured record from one URL', 'type: retail, mp-maps, mp-search or scrape.')
  async extract(
    @Body() body: ExtractRequestDto,
    @Req() req: AuthenticatedRequest,
    @Res({ passthrough: true }) res: FastifyReply,
  ): Promise<ExtractResponse> {
    const url = appendUrlParams(body.url, body.params);
    // The record is what is cached (maxAge); the response around it is made for each call.
    const { maxAge, storeInCache, ...request } = body;
    const data = await this.cache.serve('extract', req, res, request, { maxAge, storeInCache }, () =>
      this.extractByType(body.type, url, body, req.principal?.id),
    );
    return {
      data,
      taskId: randomUUID(),
      status: 'completed',
      params: {
        url: body.url,
        type: body.type,
        timeout: body.timeout,
        ...(body.params ? { params: body.params } : {}),
      },
      stacktrace: '',
    };
  }

  private extractByType(
    type: ExtractType,
    url: string,
    body: ExtractRequestDto,
    tenant: string | undefined,
  ): Promise<ExtractRecordByType[ExtractType]> {
    const call = extractUrlCall(type, {
      url,
      timeout: body.timeout,
      params: body.params,
      meta: body.meta,
      engine: body.engine,
      ...(body.scrapeOptions ? { scrapeOptions: body.scrapeOptions } : {}),
      tenant, // the authenticated key; ExtractRequestDto has no such field
    });
    return this.messaging.send(call.subject, call.payload, { timeoutMs: body.timeout });
  }
}
