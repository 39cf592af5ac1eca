import { Module } from '@nestjs/common';
import { ResultCacheModule } from '../cache/result-cache.module.js';
import { NativeOperations } from '../compat/native-operations.service.js';
import { LimitsModule } from '../limits/limits.module.js';
import { CrawlController } from './crawl.controller.js';
import { ExtractController } from './extract.controller.js';
import { ScrapeController } from './scrape.controller.js';
import { SearchController } from './search.controller.js';
import { TasksController } from './tasks.controller.js';
import { UsageController } from './usage.controller.js';

/** The native API's controllers: served here, and described by the OpenAPI document (openapi/api-docs.renderer.ts). */
export const NATIVE_CONTROLLERS = [
  SearchController,
  ExtractController,
  ScrapeController,
  TasksController,
  CrawlController,
  UsageController,
];

/**
 * The native API (/api/openapi/v1): its routes and NativeOperations, which they and the peers' APIs call (exported:
 * the compat modules translate to it). NATS comes from the global MessagingModule; the keys' requests in flight from
 * LimitsModule.
 */
@Module({
  imports: [ResultCacheModule, LimitsModule],
  controllers: NATIVE_CONTROLLERS,
  providers: [NativeOperations],
  exports: [NativeOperations],
})
export class NativeRoutesModule {}
