import { Controller, Get, Inject } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { NatsConnection } from '@nats-io/nats-core';
import { TrawlError } from '@trawl/contracts';
import { followNatsStatus, NATS_CONNECTION, type NatsLinkStatus } from '@trawl/messaging';
import { GatewayRedisService } from '../redis/gateway-redis.service.js';
import { Public } from '../auth/public.decorator.js';

/**
 * Liveness, and readiness: NATS connected and, when REDIS_URL is set, Redis ready (keys and limits live there). Not part of the API: no key needed, not in the OpenAPI document. */
@ApiExcludeController()
@Public()
@Controller('health')
export class HealthController {
  /** The NATS connection's state now (a lost connection is `disconnected` while it reconnects). */
  private readonly natsStatus: () => NatsLinkStatus;

  constructor(
    @Inject(NATS_CONNECTION) nc: NatsConnection,
    private readonly redis: GatewayRedisService,
  ) {
    this.natsStatus = followNatsStatus(nc);
  }

  @Get('live')
  live(): { status: string } {
    return { status: 'ok' };
  }

  @Get('ready')
  ready(): { status: string; nats: string; redis: string } {
    const nats = this.natsStatus();
    if (nats !== 'connected') throw new TrawlError('SERVICE_UNAVAILABLE', `NATS connection is ${nats}`);
    const redis = this.redis.client?.status ?? 'not configured';
    if (this.redis.client && redis !== 'ready') throw new TrawlError('SERVICE_UNAVAILABLE', `Redis is ${redis}`);
    return { status: 'ok', nats: 'connected', redis };
  }
}
