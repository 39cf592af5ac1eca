import { Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import type { ExtractorRetailEnv } from '@trawl/config';
import { SUBJECTS } from '@trawl/contracts';
import { MessagingClient, MessagingModule, NATS_TRACING, natsAuth } from '@trawl/messaging';
import { classifyRecord } from '@trawl/parsers';
import type { TrawlMetrics } from '@trawl/telemetry';
import {
  AMAZON_HOST,
  upstreamFetcherFromEnv,
  upstreamPageSourceFromEnv,
  UpstreamFetcher,
  UpstreamPageSource,
  UpstreamOrigin,
  type FetchFn,
} from '@trawl/upstream';
import { RetailController } from './retail.controller.js';
import { RETAIL_ORIGIN, RetailService } from './retail.service.js';

@Module({})
export class AppModule implements OnApplicationShutdown {
  constructor(private readonly fetcher: UpstreamFetcher) {}

  /**
   * `fetch` is the SSRF-guarded HTTP client (main.ts builds it from SSRF_ALLOW_HOSTS); `metrics` the
   * service's registry. Pages a browser must render
   * go to the browser fleet (extractor-scrape) over NATS: RETAIL_ENGINE, or the request's `engine`, decides.
   */
  static forRoot(env: ExtractorRetailEnv, fetch: FetchFn, metrics?: TrawlMetrics): DynamicModule {
    // Parsed pages feed the drift counters (trawl_parse_*) when the service exports metrics.
    const parseObserver = metrics?.parse.observer(classifyRecord);
    return {
      module: AppModule,
      imports: [
        MessagingModule.forRoot({
          servers: env.NATS_URL,
          name: 'extractor-retail-renders',
          caller: 'extractor-retail',
          auth: natsAuth(env),
        }),
      ],
      controllers: [RetailController],
      providers: [
        NATS_TRACING,
        { provide: UpstreamFetcher, useFactory: () => upstreamFetcherFromEnv(env, fetch, parseObserver) },
        {
          provide: UpstreamPageSource,
          useFactory: (fetcher: UpstreamFetcher, messaging: MessagingClient) =>
            upstreamPageSourceFromEnv(env, fetcher, env.RETAIL_ENGINE, (req, timeoutMs) =>
              messaging.send(SUBJECTS.renderPage, req, { timeoutMs }),
            ),
          inject: [UpstreamFetcher, MessagingClient],
        },
        { provide: RETAIL_ORIGIN, useValue: new UpstreamOrigin(env.RETAIL_BASE_URL, AMAZON_HOST) },
        RetailService,
      ],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.fetcher.close();
  }
}
