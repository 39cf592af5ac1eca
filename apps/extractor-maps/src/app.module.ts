import { Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import type { ExtractorMapsEnv } from '@trawl/config';
import { SUBJECTS } from '@trawl/contracts';
import { MessagingClient, MessagingModule, NATS_TRACING, natsAuth } from '@trawl/messaging';
import { classifyRecord } from '@trawl/parsers';
import type { TrawlMetrics } from '@trawl/telemetry';
import {
  GOOGLE_HOST,
  upstreamFetcherFromEnv,
  upstreamPageSourceFromEnv,
  UpstreamFetcher,
  UpstreamPageSource,
  UpstreamOrigin,
  type FetchFn,
} from '@trawl/upstream';
import { MapsController } from './maps.controller.js';
import { MAPS_ORIGIN, MapsService } from './maps.service.js';

@Module({})
export class AppModule implements OnApplicationShutdown {
  constructor(private readonly fetcher: UpstreamFetcher) {}

  /**
   * `fetch` is the SSRF-guarded HTTP client (main.ts builds it from SSRF_ALLOW_HOSTS); `metrics` the
   * service's registry. Pages a browser must render
   * go to the browser fleet (extractor-scrape) over NATS: MAPS_ENGINE, or the request's `engine`, decides.
   */
  static forRoot(env: ExtractorMapsEnv, fetch: FetchFn, metrics?: TrawlMetrics): DynamicModule {
    // Parsed pages feed the drift counters (trawl_parse_*) when the service exports metrics.
    const parseObserver = metrics?.parse.observer(classifyRecord);
    return {
      module: AppModule,
      imports: [
        MessagingModule.forRoot({
          servers: env.NATS_URL,
          name: 'extractor-maps-renders',
          caller: 'extractor-maps',
          auth: natsAuth(env),
        }),
      ],
      controllers: [MapsController],
      providers: [
        NATS_TRACING,
        { provide: UpstreamFetcher, useFactory: () => upstreamFetcherFromEnv(env, fetch, parseObserver) },
        {
          provide: UpstreamPageSource,
          useFactory: (fetcher: UpstreamFetcher, messaging: MessagingClient) =>
            upstreamPageSourceFromEnv(env, fetcher, env.MAPS_ENGINE, (req, timeoutMs) =>
              messaging.send(SUBJECTS.renderPage, req, { timeoutMs }),
            ),
          inject: [UpstreamFetcher, MessagingClient],
        },
        { provide: MAPS_ORIGIN, useValue: new UpstreamOrigin(env.MAPS_BASE_URL, GOOGLE_HOST) },
        MapsService,
      ],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.fetcher.close();
  }
}
