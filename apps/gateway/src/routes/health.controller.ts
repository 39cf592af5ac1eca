import { Controller, Get, Inject } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { NatsConnection } from '@nats-io/nats-core';
import { TrawlError } from '@trawl/contracts';
import { NATS_CONNECTION } from '@trawl/messaging';
import { Public } from '../http/public.decorator.js';

/** Liveness and readiness (NATS connected). Not part of the API: no key needed, not in the OpenAPI document. */
@ApiExcludeController()
@Public()
@Controller('health')
export class HealthController {
  constructor(@Inject(NATS_CONNECTION) private readonly nc: NatsConnection) {}

  @Get('live')
  live(): { status: string } {
    return { status: 'ok' };
  }

  @Get('ready')
  ready(): { status: string; nats: string } {
    if (this.nc.isClosed()) throw new TrawlError('SERVICE_UNAVAILABLE', 'NATS connection is closed');
    return { status: 'ok', nats: 'connected' };
  }
}
