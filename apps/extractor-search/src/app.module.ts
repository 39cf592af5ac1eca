import { Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import type { ExtractorSearchEnv } from '@trawl/config';
import { NATS_TRACING } from '@trawl/messaging';
import { classifyRecord } from '@trawl/parsers';
import type { TrawlMetrics } from '@trawl/telemetry';
import { upstreamFetcherFromEnv, UpstreamFetcher, type FetchFn } from '@trawl/upstream';
import { WebSearchController } from './web-search.controller.js';
import { SEARCH_SETTINGS, WebSearchService, type SearchSettings } from './web-search.service.js';

@Module({})
export class AppModule implements OnApplicationShutdown {
  constructor(private readonly fetcher: UpstreamFetcher) {}

  /** `fetch` is the SSRF-guarded HTTP client (main.ts builds it from SSRF_ALLOW_HOSTS); `metrics` the service's registry. */
  static forRoot(env: ExtractorSearchEnv, fetch: FetchFn, metrics?: TrawlMetrics): DynamicModule {
    // Parsed pages feed the drift counters (trawl_parse_*) when the service exports metrics.
    const parseObserver = metrics?.parse.observer(classifyRecord);
    const settings: SearchSettings = { baseUrl: env.SEARCH_BASE_URL, pageSize: env.SEARCH_PAGE_SIZE };
    return {
      module: AppModule,
      controllers: [WebSearchController],
      providers: [
        NATS_TRACING,
        { provide: UpstreamFetcher, useFactory: () => upstreamFetcherFromEnv(env, fetch, parseObserver) },
        { provide: SEARCH_SETTINGS, useValue: settings },
        WebSearchService,
      ],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.fetcher.close();
  }
}
