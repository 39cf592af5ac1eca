import { Module, type DynamicModule } from '@nestjs/common';
import type { ExtractorRetailEnv } from '@trawl/config';
import type { TrawlMetrics } from '@trawl/telemetry';
import { AMAZON_HOST, UpstreamExtractorModule, UpstreamOrigin, type FetchFn } from '@trawl/upstream';
import { RetailController } from './retail.controller.js';
import { RETAIL_ORIGIN, RetailService } from './retail.service.js';

@Module({})
export class AppModule {
  /**
   * The upstream extractors' shared wiring (UpstreamExtractorModule) with the retail routes: `fetch` is the
   * SSRF-guarded HTTP client, `metrics` the service's registry; RETAIL_ENGINE, or the request's `engine`, decides
   * which pages the browser fleet renders.
   */
  static forRoot(env: ExtractorRetailEnv, fetch: FetchFn, metrics?: TrawlMetrics): DynamicModule {
    return {
      module: AppModule,
      imports: [
        UpstreamExtractorModule.forRoot({
          service: 'extractor-retail',
          env,
          engine: env.RETAIL_ENGINE,
          fetch,
          metrics,
          controllers: [RetailController],
          providers: [
            { provide: RETAIL_ORIGIN, useValue: new UpstreamOrigin(env.RETAIL_BASE_URL, AMAZON_HOST) },
            RetailService,
          ],
        }),
      ],
    };
  }
}
