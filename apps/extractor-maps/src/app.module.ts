import { Module, type DynamicModule } from '@nestjs/common';
import type { ExtractorMapsEnv } from '@trawl/config';
import type { TrawlMetrics } from '@trawl/telemetry';
import { GOOGLE_HOST, UpstreamExtractorModule, UpstreamOrigin, type FetchFn } from '@trawl/upstream';
import { MapsController } from './maps.controller.js';
import { MAPS_ORIGIN, MapsService } from './maps.service.js';

@Module({})
export class AppModule {
  /**
   * The upstream extractors' shared wiring (UpstreamExtractorModule) with the maps routes: `fetch` is the
   * SSRF-guarded HTTP client, `metrics` the service's registry; MAPS_ENGINE, or the request's `engine`, decides
   * which pages the browser fleet renders.
   */
  static forRoot(env: ExtractorMapsEnv, fetch: FetchFn, metrics?: TrawlMetrics): DynamicModule {
    return {
      module: AppModule,
      imports: [
        UpstreamExtractorModule.forRoot({
          service: 'extractor-maps',
          env,
          engine: env.MAPS_ENGINE,
          fetch,
          metrics,
          controllers: [MapsController],
          providers: [
            { provide: MAPS_ORIGIN, useValue: new UpstreamOrigin(env.MAPS_BASE_URL, GOOGLE_HOST) },
            MapsService,
          ],
        }),
      ],
    };
  }
}
