import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import type { TaskServiceEnv } from '@trawl/config';
import { needsBrowser, SUBJECTS } from '@trawl/contracts';
import { CrawlDocumentsStore, CrawlEventsPublisher, CrawlStore, CrawlWorkers, HostBudgetLimiter } from '@trawl/crawl';
import { MessagingClient } from '@trawl/messaging';
import type { RedisClient } from '@trawl/redis';
import { parseAllowList, safeFetch } from '@trawl/safe-fetch';
import { CRAWL_REDIS, TASK_SERVICE_ENV } from './task-service.tokens.js';

/** How long a crawl page's request waits for the extractor beyond the page's own timeout, ms. */
const SCRAPE_REPLY_MARGIN_MS = 2000;
/** A crawl page that meets "no responders" asks again this long before the crawl waits for its fleet, ms. */
const SCRAPE_RIDE_OUT_MS = 1000;

/** Starts this replica's crawl workers (ADR 0026) and the documents stream; stops them before NATS drains. */
@Injectable()
export class CrawlRuntimeService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('CrawlRuntime');
  private workers: CrawlWorkers | undefined;

  constructor(
    @Inject(TASK_SERVICE_ENV) private readonly env: TaskServiceEnv,
    @Inject(CRAWL_REDIS) private readonly redis: RedisClient,
    private readonly messaging: MessagingClient,
    private readonly store: CrawlStore,
    private readonly documents: CrawlDocumentsStore,
    private readonly events: CrawlEventsPublisher,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const env = this.env;
    await this.documents.ensureStream();
    if (!env.TASK_WORKERS_ENABLED || env.CRAWL_CONCURRENCY === 0) return;
    const allow = parseAllowList(env.SSRF_ALLOW_HOSTS);
    this.workers = new CrawlWorkers(
      this.store,
      new HostBudgetLimiter(this.redis),
      this.documents,
      (request, timeoutMs, abandon) =>
        this.messaging.send(
          SUBJECTS.scrapePage,
          // The configured engine is a default: a page with browser options (actions, a screenshot) gets the browser.
          !request.engine && env.TASK_SCRAPE_ENGINE
            ? { ...request, engine: needsBrowser(request) ? 'browser' : env.TASK_SCRAPE_ENGINE }
            : request,
          {
            timeoutMs: timeoutMs + SCRAPE_REPLY_MARGIN_MS,
            rideOutMs: SCRAPE_RIDE_OUT_MS,
            ...(abandon ? { abandon } : {}),
          },
        ),
      (url) => safeFetch(url, { allow, timeoutMs: 15_000, maxBodyBytes: 50 * 1024 * 1024, maxRedirects: 5 }),
      {
        concurrency: env.CRAWL_CONCURRENCY,
        leaseMs: env.CRAWL_LEASE_MS,
        maxTries: env.CRAWL_MAX_TRIES,
        fleetMaxWaitMs: env.TASK_FLEET_MAX_WAIT_MS,
        fleetProbeMs: env.TASK_FLEET_PROBE_INTERVAL_MS,
        idleMs: env.CRAWL_IDLE_MS,
        robotsAgent: env.CRAWL_ROBOTS_AGENT,
        maxCrawlDelayMs: env.CRAWL_MAX_CRAWL_DELAY_MS,
        onError: (message, e) => this.logger.error(`${message}: ${e instanceof Error ? e.message : String(e)}`),
        onEnded: (id) => this.logger.log(`crawl ${id} ended`),
        events: this.events,
      },
    );
    this.workers.start();
  }

  /** Stops taking crawl pages and waits for those in flight (their leases settle). */
  async stopWorkers(): Promise<void> {
    await this.workers?.close();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.stopWorkers();
    this.redis.disconnect();
  }
}
