import { Module } from '@nestjs/common';
import { GatewayRedisService } from './gateway-redis.service.js';

/** The gateway's one Redis connection (keys, limits, the peers' batch and crawl records, readiness). */
@Module({
  providers: [GatewayRedisService],
  exports: [GatewayRedisService],
})
export class GatewayRedisModule {}
