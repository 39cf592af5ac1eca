import { Module, type DynamicModule } from '@nestjs/common';
import type { GatewayEnv } from '@trawl/config';
import type { TrawlMetrics } from '@trawl/telemetry';
import { GATEWAY_ENV, GATEWAY_METRICS } from './gateway.tokens.js';

/** The validated env and the process's metrics, for every feature module (global: each injects the tokens). */
@Module({})
export class GatewayConfigModule {
  static forRoot(env: GatewayEnv, metrics: TrawlMetrics): DynamicModule {
    return {
      module: GatewayConfigModule,
      global: true,
      providers: [
        { provide: GATEWAY_ENV, useValue: env },
        { provide: GATEWAY_METRICS, useValue: metrics },
      ],
      exports: [GATEWAY_ENV, GATEWAY_METRICS],
    };
  }
}
