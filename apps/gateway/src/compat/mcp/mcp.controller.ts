import { All, Controller, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyReply } from 'fastify';
import type { AuthenticatedRequest } from '../../auth/api-key.guard.js';
import { NoEnvelope } from '../../envelope/no-envelope.decorator.js';
import { FirecrawlBatchService } from '../firecrawl/firecrawl-batch.service.js';
import { FirecrawlService } from '../firecrawl/firecrawl.service.js';
import { FirecrawlCrawlService } from '../firecrawl/firecrawl-crawl.service.js';
import { NativeOperations } from '../native-operations.service.js';
import { createMcpServer } from './mcp-server.factory.js';

/**
 * MCP at `/mcp` over streamable HTTP (the official SDK's transport, stateless: a server per request, so any replica
 * answers any call). The key is the request's (Bearer or x-api-key), checked by the same guards as every route:
 * the tools run as that key, with its limits and tenancy.
 */
@ApiExcludeController()
@NoEnvelope()
@Controller('mcp')
export class McpController {
  constructor(
    private readonly native: NativeOperations,
    private readonly firecrawl: FirecrawlService,
    private readonly batches: FirecrawlBatchService,
    private readonly crawls: FirecrawlCrawlService,
  ) {}

  @All()
  async handle(@Req() req: AuthenticatedRequest, @Res() res: FastifyReply): Promise<void> {
    const server = createMcpServer({
      native: this.native,
      firecrawl: this.firecrawl,
      batches: this.batches,
      crawls: this.crawls,
      req,
      res,
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: false });
    res.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    // The transport writes the response itself (JSON or an SSE stream for progress): the headers set so far (request
    // id, security headers, rate-limit state) go on the raw response first.
    for (const [name, value] of Object.entries(res.getHeaders())) {
      if (value !== undefined) res.raw.setHeader(name, value as string | number | string[]);
    }
    res.hijack();
    await server.connect(transport);
    await transport.handleRequest(req.raw, res.raw, req.body);
  }
}
