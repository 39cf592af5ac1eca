import { randomUUID } from 'node:crypto';
import { Body, Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { ExtractRequestDto, type ExtractResponse } from '@trawl/contracts';
import type { FastifyReply } from 'fastify';
import type { AuthenticatedRequest } from '../auth/api-key.guard.js';
import { NativeOperations } from '../compat/native-operations.service.js';
import { ApiOperationDoc } from './api-operation-doc.decorator.js';

/** POST /extract: one URL of a given type, synchronously, routed to the extractor that owns the type. */
@ApiTags('extract')
@Controller('extract')
export class ExtractController {
  constructor(private readonly operations: NativeOperations) {}

  @Post()
  @HttpCode(200)
  @ApiOperationDoc('Extract a structured record from one URL', 'type: retail, mp-maps, mp-search or scrape.')
  async extract(
    @Body() body: ExtractRequestDto,
    @Req() req: AuthenticatedRequest,
    @Res({ passthrough: true }) res: FastifyReply,
  ): Promise<ExtractResponse> {
    // The record is what is cached (maxAge); the response around it is made for each call.
    const data = await this.operations.extractValidated(body, req, res);
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
}
