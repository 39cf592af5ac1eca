import { Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import type { ExtractorMapsEnv } from '@trawl/config';
import { NATS_TRACING } from '@trawl/messaging';
import { classifyRecord } from '@trawl/parsers';
import type { TrawlMetrics } from '@trawl/telemetry';
import { GOOGLE_HOST, upstreamFetcherFromEnv, UpstreamFetcher, UpstreamOrigin, type FetchFn } from '@trawl/upstream';
import { MapsController } from './maps.controller.js';
import { MAPS_ORIGIN, MapsService } from './maps.service.js';

@Module({})
export class AppModule implements OnApplicationShutdown {
  constructor(private readonly fetcher: UpstreamFetcher) {}

  /** `fetch` is the SSRF-guarded HTTP client (main.ts builds it from SSRF_ALLOW_HOSTS); `metrics` the service's registry. */
  static forRoot(env: ExtractorMapsEnv, fetch: FetchFn, metrics?: TrawlMetrics): DynamicModule {
    // Parsed pages feed the drift counters (trawl_parse_*) when the service exports metrics.
    const parseObserver = metrics?.parse.observer(classifyRecord);
    return {
      module: AppModule,
      controllers: [MapsController],
      providers: [
        NATS_TRACING,
        { provide: UpstreamFetcher, useFactory: () => upstreamFetcherFromEnv(env, fetch, parseObserver) },
        { provide: MAPS_ORIGIN, useValue: new UpstreamOrigin(env.MAPS_BASE_URL, GOOGLE_HOST) },
        MapsService,
      ],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.fetcher.close();
  }
}
