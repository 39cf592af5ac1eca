import { Module } from '@nestjs/common';
import { GatewayRedisModule } from '../../redis/gateway-redis.module.js';
import { NativeRoutesModule } from '../../routes/native-routes.module.js';
import { FirecrawlBatchService } from './firecrawl-batch.service.js';
import { FirecrawlCrawlService } from './firecrawl-crawl.service.js';
import { FirecrawlV1Controller } from './firecrawl-v1.controller.js';
import { FirecrawlV2Controller } from './firecrawl-v2.controller.js';
import { FirecrawlService } from './firecrawl.service.js';

/** Firecrawl's API, v2 and v1 (ADR 0024): translations of the native operations; its services serve MCP too. */
@Module({
  imports: [NativeRoutesModule, GatewayRedisModule],
  controllers: [FirecrawlV2Controller, FirecrawlV1Controller],
  providers: [FirecrawlService, FirecrawlBatchService, FirecrawlCrawlService],
  exports: [FirecrawlService, FirecrawlBatchService, FirecrawlCrawlService],
})
export class FirecrawlModule {}
