import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { KeyLimitsGuard } from '../limits/key-limits.guard.js';
import { LimitsModule } from '../limits/limits.module.js';
import { GatewayRedisModule } from '../redis/gateway-redis.module.js';
import { ApiKeyGuard } from './api-key.guard.js';
import { ApiKeysService } from './api-keys.service.js';

/**
 * Who may call, and how much: the API key guard and the key's limits, on every route. Both guards are provided here,
 * in this order, and nowhere else: Nest runs global guards in the order they are provided, so a request is
 * authenticated before it is counted against its key's rate and concurrency (app.module.spec.ts checks it).
 */
@Module({
  imports: [GatewayRedisModule, LimitsModule],
  providers: [
    ApiKeysService,
    { provide: APP_GUARD, useClass: ApiKeyGuard },
    { provide: APP_GUARD, useClass: KeyLimitsGuard },
  ],
})
export class AuthModule {}
