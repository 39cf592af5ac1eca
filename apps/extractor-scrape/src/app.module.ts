import { Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import { AdBlocker, BrowserPool, resolveChromiumPath, sandboxDecision } from '@trawl/browser-pool';
import type { ExtractorScrapeEnv } from '@trawl/config';
import { SUBJECTS } from '@trawl/contracts';
import { MessagingClient, MessagingModule, NATS_TRACING, natsAuth } from '@trawl/messaging';
import { checkUrl, GuardProxy, parseAllowList, ProxyRotation } from '@trawl/safe-fetch';
import type { TrawlMetrics } from '@trawl/telemetry';
import { CrawlPlanController } from './crawl-plan/crawl-plan.controller.js';
import { CrawlPlanner } from './crawl-plan/crawl-planner.service.js';
import { BrowserScrapeEngine } from './engines/browser-scrape.engine.js';
import { HttpScrapeEngine } from './engines/http-scrape.engine.js';
import { RenderController } from './render.controller.js';
import { RenderService } from './render.service.js';
import { PageWorkPool } from './content/page-work.pool.js';
import { LlmFormatsService } from './llm/llm-formats.service.js';
import { llmSettingsOf } from './llm/llm.settings.js';
import { LEDGER_DEADLINE_MS, TokenLedger } from './llm/token-ledger.service.js';
import { ScrapeController } from './scrape.controller.js';
import { ScrapeService } from './scrape.service.js';
import { SCRAPE_SETTINGS, type ScrapeSettings } from './scrape.settings.js';

/** HTML shorter than this is converted on the event loop (see bench/ and ADR 0007). */
const INLINE_WORK_BELOW_CHARS = 4 * 1024;

@Module({})
export class AppModule implements OnApplicationShutdown {
  constructor(
    private readonly pool: BrowserPool,
    private readonly proxy: GuardProxy,
    private readonly work: PageWorkPool,
    private readonly llm: LlmFormatsService,
    private readonly planner: CrawlPlanner,
  ) {}

  /** `metrics`: where proxy health is counted (bootstrap passes the service's; tests may leave it out). */
  static forRoot(env: ExtractorScrapeEnv, metrics?: TrawlMetrics): DynamicModule {
    const allow = parseAllowList(env.SSRF_ALLOW_HOSTS);
    const settings: ScrapeSettings = {
      defaultEngine: env.SCRAPE_DEFAULT_ENGINE,
      allow,
      maxBodyBytes: env.SCRAPE_MAX_BODY_BYTES,
      edgeId: env.INSTANCE_ID,
      settle: { quietMs: env.BROWSER_SETTLE_QUIET_MS, maxMs: env.BROWSER_SETTLE_MAX_MS },
      maxScreenshotBytes: env.SCRAPE_SCREENSHOT_MAX_BYTES,
      actionsMaxMs: env.SCRAPE_ACTIONS_MAX_MS,
      llm: llmSettingsOf(env),
    };
    // Chromium reaches the web only through the guarding proxy (every request and hop checked before it leaves and
    // at connect time); the pool checks the page's navigation and redirect hops too, for a clear URL_NOT_ALLOWED.
    const proxies = new ProxyRotation(env.PROXY_URLS, { cooldownMs: env.PROXY_COOLDOWN_MS });
    const proxy = async () => {
      const guardProxy = new GuardProxy({
        allow,
        onUpstream: (p, outcome) => metrics?.proxy.requests.inc({ proxy: p, outcome }),
      });
      await guardProxy.start();
      return guardProxy;
    };
    // blockAds (ADR 0030): the filter engine (the tracker database and BLOCK_ADS_LISTS) is built once, at start-up
    // (~0.7 s of CPU, before the service serves anything). An unreadable tracker database stops the start; a list file
    // that cannot be read is left out (bootstrap warns, naming it).
    const adBlocker = new AdBlocker({ filterLists: env.BLOCK_ADS_LISTS });
    const pool = async (guardProxy: GuardProxy) => {
      await adBlocker.ready();
      return new BrowserPool({
        executablePath: resolveChromiumPath(env.CHROMIUM_PATH),
        maxBrowsers: env.BROWSER_MAX_BROWSERS,
        maxPagesPerBrowser: env.BROWSER_MAX_PAGES_PER_BROWSER,
        retireAfterPages: env.BROWSER_RETIRE_AFTER_PAGES,
        queueLimit: env.BROWSER_QUEUE_LIMIT,
        blockResources: env.BROWSER_BLOCK_RESOURCES,
        reuseContexts: env.BROWSER_REUSE_CONTEXTS,
        maxTasksPerContext: env.BROWSER_MAX_TASKS_PER_CONTEXT,
        cleanupTimeoutMs: env.BROWSER_CLEANUP_TIMEOUT_MS,
        sandbox: sandboxDecision(env.BROWSER_NO_SANDBOX).sandbox,
        guard: async (url) => void (await checkUrl(url, { allow })),
        proxyServer: guardProxy.url,
        sessionMaxTasks: env.BROWSER_SESSION_MAX_TASKS,
        sessionMaxAgeMs: env.BROWSER_SESSION_MAX_AGE_MS,
        adBlocker,
        // Each session browses through one upstream proxy (when PROXY_URLS is set), through the guard's lane for it.
        ...(proxies.size > 0
          ? {
              upstreamProxies: {
                next: (country?: string, scope?: string) => proxies.next(scope ?? '', country),
                markBlocked: (p: string, scope?: string) => proxies.markBlocked(p, scope ?? ''),
                laneFor: (p: string) => guardProxy.laneFor(p),
              },
            }
          : {}),
      });
    };
    // Markdown conversion, HTML scans and PDF text run off the event loop under a per-page budget (ADR 0007). HTML
    // under INLINE_WORK_BELOW_CHARS is converted inline: the thread hop costs more than the work there.
    // blockAds' element hiding runs there too: each thread holds the blocker's engine (ADR 0030, cosmetic filtering).
    const work = async () => {
      await adBlocker.ready();
      const pool = new PageWorkPool({
        adFilters: adBlocker.serialize(),
        threads: env.SCRAPE_WORK_THREADS,
        budgetMs: env.SCRAPE_WORK_BUDGET_MS,
        inlineBelowChars: INLINE_WORK_BELOW_CHARS,
      });
      await pool.warmUp();
      return pool;
    };
    return {
      module: AppModule,
      // Its own requests: a key's language-model tokens (the json / summary formats, crawl plans), asked of and told
      // to task-service (ADR 0040).
      imports: [
        MessagingModule.forRoot({
          servers: env.NATS_URL,
          name: `extractor-scrape-${env.INSTANCE_ID}-tokens`,
          caller: 'extractor-scrape',
          auth: natsAuth(env),
        }),
      ],
      controllers: [ScrapeController, RenderController, CrawlPlanController],
      providers: [
        NATS_TRACING,
        { provide: SCRAPE_SETTINGS, useValue: settings },
        { provide: ProxyRotation, useValue: proxies },
        { provide: AdBlocker, useValue: adBlocker },
        { provide: GuardProxy, useFactory: proxy },
        { provide: BrowserPool, useFactory: pool, inject: [GuardProxy] },
        BrowserScrapeEngine,
        HttpScrapeEngine,
        { provide: PageWorkPool, useFactory: work },
        {
          provide: TokenLedger,
          useFactory: (messaging: MessagingClient) => {
            const options = { timeoutMs: LEDGER_DEADLINE_MS };
            return new TokenLedger({
              usage: (apiKeyId) => messaging.send(SUBJECTS.tokensUsage, { apiKeyId }, options),
              record: (apiKeyId, spend) => messaging.send(SUBJECTS.tokensRecord, { apiKeyId, ...spend }, options),
            });
          },
          inject: [MessagingClient],
        },
        {
          provide: LlmFormatsService,
          useFactory: (ledger: TokenLedger) => new LlmFormatsService(settings.llm, undefined, ledger),
          inject: [TokenLedger],
        },
        {
          provide: CrawlPlanner,
          useFactory: (ledger: TokenLedger) => new CrawlPlanner(settings.llm, ledger),
          inject: [TokenLedger],
        },
        ScrapeService,
        RenderService,
      ],
      exports: [BrowserPool, ProxyRotation, AdBlocker],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.pool.close();
    await this.proxy.close();
    await this.work.close();
    await this.llm.close();
    await this.planner.close();
  }
}
