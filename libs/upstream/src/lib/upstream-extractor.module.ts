import {
  Module,
  type DynamicModule,
  type OnApplicationShutdown,
  type OnModuleInit,
  type Provider,
  type Type,
} from '@nestjs/common';
import type { ExtractorUpstreamEnv } from '@trawl/config';
import { SUBJECTS, type ServiceName, type UpstreamEngine } from '@trawl/contracts';
import { MessagingClient, MessagingModule, NATS_TRACING, natsAuth } from '@trawl/messaging';
import { classifyRecord } from '@trawl/parsers';
import type { TrawlMetrics } from '@trawl/telemetry';
import { parseWorkPoolFromEnv, upstreamFetcherFromEnv, upstreamPageSourceFromEnv } from './upstream-fetcher.factory.js';
import { UpstreamFetcher, type FetchFn } from './upstream-fetcher.service.js';
import { ParseWorkPool } from './parse-work.pool.js';
import { UpstreamPageSource } from './upstream-page.source.js';

/** What sets one upstream extractor (search, maps, retail) apart: its name, default engine, routes and services. */
export interface UpstreamExtractorOptions {
  /** The service: its NATS caller name, and its render connection's (`<service>-renders`). */
  service: ServiceName;
  env: ExtractorUpstreamEnv;
  /** The engine when a request names none (`SEARCH_ENGINE`, `MAPS_ENGINE`, `RETAIL_ENGINE`). */
  engine: UpstreamEngine;
  /** The SSRF-guarded HTTP client (main.ts builds it from SSRF_ALLOW_HOSTS). */
  fetch: FetchFn;
  /** The service's registry: parsed pages feed the drift counters (trawl_parse_*) when given. */
  metrics?: TrawlMetrics;
  controllers: Type<unknown>[];
  /** The extractor's own services; they may inject UpstreamPageSource, UpstreamFetcher and ParseWorkPool. */
  providers: Provider[];
}

/**
 * The wiring the upstream extractors share: the upstream HTTP client, the parse pool (warmed up at start, closed at
 * shutdown) and the page source, which sends the pages a browser must render to the browser fleet (extractor-scrape)
 * over NATS when the engine (the request's, else the service's) says so. Each extractor adds its routes and services.
 */
@Module({})
export class UpstreamExtractorModule implements OnModuleInit, OnApplicationShutdown {
  constructor(
    private readonly fetcher: UpstreamFetcher,
    private readonly parsing: ParseWorkPool,
  ) {}

  static forRoot(options: UpstreamExtractorOptions): DynamicModule {
    const { env, fetch, service } = options;
    const parseObserver = options.metrics?.parse.observer(classifyRecord);
    return {
      module: UpstreamExtractorModule,
      imports: [
        MessagingModule.forRoot({
          servers: env.NATS_URL,
          name: `${service}-renders`,
          caller: service,
          auth: natsAuth(env),
        }),
      ],
      controllers: options.controllers,
      providers: [
        NATS_TRACING,
        { provide: UpstreamFetcher, useFactory: () => upstreamFetcherFromEnv(env, fetch, parseObserver) },
        { provide: ParseWorkPool, useFactory: () => parseWorkPoolFromEnv(env) },
        {
          provide: UpstreamPageSource,
          useFactory: (fetcher: UpstreamFetcher, messaging: MessagingClient) =>
            upstreamPageSourceFromEnv(env, fetcher, options.engine, (req, timeoutMs) =>
              messaging.send(SUBJECTS.renderPage, req, { timeoutMs }),
            ),
          inject: [UpstreamFetcher, MessagingClient],
        },
        ...options.providers,
      ],
    };
  }

  /** The parse pool's threads load the parsers before the first request (its budget should not pay for that). */
  async onModuleInit(): Promise<void> {
    await this.parsing.warmUp();
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([this.fetcher.close(), this.parsing.close()]);
  }
}
