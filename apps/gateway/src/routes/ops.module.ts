import { Module } from '@nestjs/common';
import { GatewayRedisModule } from '../redis/gateway-redis.module.js';
import { HealthController } from './health.controller.js';
import { MetricsController } from './metrics.controller.js';

/** What operators and probes read: `/health/live`, `/health/ready` (NATS and Redis) and `/metrics`. */
@Module({
  imports: [GatewayRedisModule],
  controllers: [HealthController, MetricsController],
})
export class OpsModule {}
