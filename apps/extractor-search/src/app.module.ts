import { Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import type { ExtractorSearchEnv } from '@trawl/config';
import { SUBJECTS } from '@trawl/contracts';
import { MessagingClient, MessagingModule, NATS_TRACING, natsAuth } from '@trawl/messaging';
import { classifyRecord } from '@trawl/parsers';
import type { TrawlMetrics } from '@trawl/telemetry';
import {
  upstreamFetcherFromEnv,
  upstreamPageSourceFromEnv,
  UpstreamFetcher,
  UpstreamPageSource,
  type FetchFn,
} from '@trawl/upstream';
import { WebSearchController } from './web-search.controller.js';
import { SEARCH_SETTINGS, WebSearchService, type SearchSettings } from './web-search.service.js';

@Module({})
export class AppModule implements OnApplicationShutdown {
  constructor(private readonly fetcher: UpstreamFetcher) {}

  /**
   * `fetch` is the SSRF-guarded HTTP client (main.ts builds it from SSRF_ALLOW_HOSTS); `metrics` the
   * service's registry. Pages a browser must render
   * go to the browser fleet (extractor-scrape) over NATS: SEARCH_ENGINE, or the request's `engine`, decides.
   */
  static forRoot(env: ExtractorSearchEnv, fetch: FetchFn, metrics?: TrawlMetrics): DynamicModule {
    // Parsed pages feed the drift counters (trawl_parse_*) when the service exports metrics.
    const parseObserver = metrics?.parse.observer(classifyRecord);
    const settings: SearchSettings = { baseUrl: env.SEARCH_BASE_URL, pageSize: env.SEARCH_PAGE_SIZE };
    return {
      module: AppModule,
      imports: [
        MessagingModule.forRoot({
          servers: env.NATS_URL,
          name: 'extractor-search-renders',
          caller: 'extractor-search',
          auth: natsAuth(env),
        }),
      ],
      controllers: [WebSearchController],
      providers: [
        NATS_TRACING,
        { provide: UpstreamFetcher, useFactory: () => upstreamFetcherFromEnv(env, fetch, parseObserver) },
        {
          provide: UpstreamPageSource,
          useFactory: (fetcher: UpstreamFetcher, messaging: MessagingClient) =>
            upstreamPageSourceFromEnv(env, fetcher, env.SEARCH_ENGINE, (req, timeoutMs) =>
              messaging.send(SUBJECTS.renderPage, req, { timeoutMs }),
            ),
          inject: [UpstreamFetcher, MessagingClient],
        },
        { provide: SEARCH_SETTINGS, useValue: settings },
        WebSearchService,
      ],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.fetcher.close();
  }
}
