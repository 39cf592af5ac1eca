import { Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import { csv, type ExtractorSearchEnv } from '@trawl/config';
import { SUBJECTS } from '@trawl/contracts';
import { MessagingClient, MessagingModule, NATS_TRACING } from '@trawl/messaging';
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
   * `fetch` is the SSRF-guarded HTTP client (main.ts builds it from SSRF_ALLOW_HOSTS). Pages a browser must render
   * go to the browser fleet (extractor-scrape) over NATS: SEARCH_ENGINE, or the request's `engine`, decides.
   */
  static forRoot(env: ExtractorSearchEnv, fetch: FetchFn): DynamicModule {
    const settings: SearchSettings = { baseUrl: env.SEARCH_BASE_URL, pageSize: env.SEARCH_PAGE_SIZE };
    return {
      module: AppModule,
      imports: [MessagingModule.forRoot({ servers: csv(env.NATS_URL), name: 'extractor-search-renders' })],
      controllers: [WebSearchController],
      providers: [
        NATS_TRACING,
        { provide: UpstreamFetcher, useFactory: () => upstreamFetcherFromEnv(env, fetch) },
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
