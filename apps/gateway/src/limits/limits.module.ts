import { Module } from '@nestjs/common';
import { GatewayRedisModule } from '../redis/gateway-redis.module.js';
import { KeyConcurrency } from './key-concurrency.service.js';

/** The keys' shared counts: requests in flight (KeyConcurrency), capped by KeyLimitsGuard and read by the usage routes. */
@Module({
  imports: [GatewayRedisModule],
  providers: [KeyConcurrency],
  exports: [KeyConcurrency],
})
export class LimitsModule {}
