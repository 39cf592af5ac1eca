import { Module, type DynamicModule } from '@nestjs/common';
import type { ExtractorSearchEnv } from '@trawl/config';
import type { TrawlMetrics } from '@trawl/telemetry';
import { UpstreamExtractorModule, type FetchFn } from '@trawl/upstream';
import { WebSearchController } from './web-search.controller.js';
import { SEARCH_SETTINGS, WebSearchService, type SearchSettings } from './web-search.service.js';

@Module({})
export class AppModule {
  /**
   * The upstream extractors' shared wiring (UpstreamExtractorModule) with the web search route: `fetch` is the
   * SSRF-guarded HTTP client, `metrics` the service's registry; SEARCH_ENGINE, or the request's `engine`, decides
   * which pages the browser fleet renders.
   */
  static forRoot(env: ExtractorSearchEnv, fetch: FetchFn, metrics?: TrawlMetrics): DynamicModule {
    const settings: SearchSettings = { baseUrl: env.SEARCH_BASE_URL, pageSize: env.SEARCH_PAGE_SIZE };
    return {
      module: AppModule,
      imports: [
        UpstreamExtractorModule.forRoot({
          service: 'extractor-search',
          env,
          engine: env.SEARCH_ENGINE,
          fetch,
          metrics,
          controllers: [WebSearchController],
          providers: [{ provide: SEARCH_SETTINGS, useValue: settings }, WebSearchService],
        }),
      ],
    };
  }
}
