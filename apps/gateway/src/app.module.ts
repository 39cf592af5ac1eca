import { Module, type DynamicModule } from '@nestjs/common';
import type { GatewayEnv } from '@trawl/config';
import { MessagingModule, natsAuth } from '@trawl/messaging';
import type { TrawlMetrics } from '@trawl/telemetry';
import { AuthModule } from './auth/auth.module.js';
import { FirecrawlModule } from './compat/firecrawl/firecrawl.module.js';
import { McpModule } from './compat/mcp/mcp.module.js';
import { SerpApiModule } from './compat/serpapi/serp-api.module.js';
import { EnvelopeModule } from './envelope/envelope.module.js';
import { GatewayConfigModule } from './gateway-config.module.js';
import { NativeRoutesModule } from './routes/native-routes.module.js';
import { OpsModule } from './routes/ops.module.js';

/**
 * The gateway, composed of its features: each module owns its providers and exports what another uses (the native
 * operations, the Firecrawl services, the Redis connection). Env and metrics (GatewayConfigModule) and NATS
 * (MessagingModule) are global; the envelope and validation, and the key guards, apply to every route.
 */
@Module({})
export class AppModule {
  static forRoot(env: GatewayEnv, metrics: TrawlMetrics): DynamicModule {
    return {
      module: AppModule,
      imports: [
        GatewayConfigModule.forRoot(env, metrics),
        MessagingModule.forRoot({
          servers: env.NATS_URL,
          caller: 'gateway',
          name: 'gateway',
          observe: metrics.nats.observer,
          auth: natsAuth(env),
        }),
        EnvelopeModule,
        AuthModule,
        NativeRoutesModule,
        OpsModule,
        // The peers' APIs (ADR 0024): translations of the native operations, nothing else.
        FirecrawlModule,
        SerpApiModule,
        McpModule,
      ],
    };
  }
}
