import { Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR, APP_PIPE } from '@nestjs/core';
import type { GatewayEnv } from '@trawl/config';
import { MessagingModule, natsAuth } from '@trawl/messaging';
import type { TrawlMetrics } from '@trawl/telemetry';
import { ResultCacheService } from './cache/result-cache.service.js';
import { GATEWAY_ENV, GATEWAY_METRICS } from './gateway.tokens.js';
import { ApiKeyGuard } from './auth/api-key.guard.js';
import { ApiKeysService } from './auth/api-keys.service.js';
import { GatewayRedisService } from './redis/gateway-redis.service.js';
import { KeyLimitsGuard } from './limits/key-limits.guard.js';
import { DtoValidationPipe } from './validation/dto-validation.pipe.js';
import { EnvelopeExceptionFilter } from './envelope/envelope-exception.filter.js';
import { EnvelopeInterceptor } from './envelope/envelope.interceptor.js';
import { CrawlController } from './routes/crawl.controller.js';
import { ExtractController } from './routes/extract.controller.js';
import { HealthController } from './routes/health.controller.js';
import { MetricsController } from './routes/metrics.controller.js';
import { ScrapeController } from './routes/scrape.controller.js';
import { SearchController } from './routes/search.controller.js';
import { TasksController } from './routes/tasks.controller.js';
import { NativeOperations } from './compat/native-operations.service.js';
import { FirecrawlService } from './compat/firecrawl/firecrawl.service.js';
import { FirecrawlCrawlService } from './compat/firecrawl/firecrawl-crawl.service.js';
import { FirecrawlBatchService } from './compat/firecrawl/firecrawl-batch.service.js';
import { FirecrawlV1Controller } from './compat/firecrawl/firecrawl-v1.controller.js';
import { FirecrawlV2Controller } from './compat/firecrawl/firecrawl-v2.controller.js';
import { SerpApiController } from './compat/serpapi/serp-api.controller.js';
import { McpController } from './compat/mcp/mcp.controller.js';

@Module({})
export class AppModule {
  static forRoot(env: GatewayEnv, metrics: TrawlMetrics): DynamicModule {
    return {
      module: AppModule,
      imports: [
        MessagingModule.forRoot({
          servers: env.NATS_URL,
          caller: 'gateway',
          name: 'gateway',
          observe: metrics.nats.observer,
          auth: natsAuth(env),
        }),
      ],
      controllers: [
        SearchController,
        ExtractController,
        ScrapeController,
        TasksController,
        CrawlController,
        HealthController,
        MetricsController,
        // The peers' APIs (ADR 0024): translations of the native operations above, nothing else.
        FirecrawlV2Controller,
        FirecrawlV1Controller,
        SerpApiController,
        McpController,
      ],
      providers: [
        { provide: GATEWAY_ENV, useValue: env },
        { provide: GATEWAY_METRICS, useValue: metrics },
        GatewayRedisService,
        ResultCacheService,
        ApiKeysService,
        NativeOperations,
        FirecrawlService,
        FirecrawlBatchService,
        FirecrawlCrawlService,
        // Order matters: authenticate first, then count against the key's limits.
        { provide: APP_GUARD, useClass: ApiKeyGuard },
        { provide: APP_GUARD, useClass: KeyLimitsGuard },
        { provide: APP_PIPE, useClass: DtoValidationPipe },
        { provide: APP_INTERCEPTOR, useClass: EnvelopeInterceptor },
        { provide: APP_FILTER, useClass: EnvelopeExceptionFilter },
      ],
    };
  }
}
