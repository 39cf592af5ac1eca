import { Controller, Get, Inject, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { TrawlMetrics } from '@trawl/telemetry';
import type { FastifyReply } from 'fastify';
import { GATEWAY_METRICS } from '../gateway.tokens.js';
import { Public } from '../auth/public.decorator.js';

/**
 * Prometheus scrape endpoint (`GET /metrics`, outside the API prefix, no key, not in the OpenAPI document). It
 * answers the text format itself, so the envelope interceptor leaves it alone.
 */
@ApiExcludeController()
@Public()
@Controller('metrics')
export class MetricsController {
  constructor(@Inject(GATEWAY_METRICS) private readonly metrics: TrawlMetrics) {}

  @Get()
  async scrape(@Res() reply: FastifyReply): Promise<void> {
    const body = await this.metrics.registry.metrics();
    await reply.type(this.metrics.registry.contentType).send(body);
  }
}
