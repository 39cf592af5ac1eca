import { Controller, Get, Inject } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { NatsConnection } from '@nats-io/nats-core';
import { TrawlError } from '@trawl/contracts';
import { NATS_CONNECTION } from '@trawl/messaging';
import { GatewayRedisService } from '../http/gateway-redis.service.js';
import { Public } from '../http/public.decorator.js';

/**
 * Liveness, and readiness: NATS connected and, when REDIS_URL is set, Redis ready (keys and limits live there). Not part of the API: no key needed, not in the OpenAPI document. */
@ApiExcludeController()
@Public()
@Controller('health')
export class HealthController {
  constructor(
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    private readonly redis: GatewayRedisService,
  ) {}

  @Get('live')
  live(): { status: string } {
    return { status: 'ok' };
  }

  @Get('ready')
  ready(): { status: string; nats: string; redis: string } {
    if (this.nc.isClosed()) throw new TrawlError('SERVICE_UNAVAILABLE', 'NATS connection is closed');
    const redis = this.redis.client?.status ?? 'not configured';
    if (this.redis.client && redis !== 'ready') throw new TrawlError('SERVICE_UNAVAILABLE', `Redis is ${redis}`);
    return { status: 'ok', nats: 'connected', redis };
  }
}
