import type { ServerResponse } from 'node:http';
import { Injectable } from '@nestjs/common';
import {
  appendUrlParams,
  CRAWL_PLAN_LIMITS,
  CrawlPlanBodyDto,
  CrawlRequestDto,
  ExtractRequestDto,
  extractUrlCall,
  MapRequestDto,
  MapsSearchRequestDto,
  parseDto,
  scrapePageRequest,
  ScrapeRequestDto,
  SUBJECTS,
  UrlBatchRequestDto,
  WebSearchRequestDto,
  type ActiveCrawlsResult,
  type KeyQueueUsage,
  type LlmTokensUsage,
  TrawlError,
  type CrawlErrorsResult,
  type CrawlPlan,
  type CrawlPlanScope,
  type ErrorCode,
  type CrawlStartReply,
  type CrawlStatusReply,
  type ExtractRecordByType,
  type ExtractType,
  type MapSiteReply,
  type MapsSearchResponse,
  type ScrapeResult,
  type TaskRecord,
  type TaskSubmitReply,
  type TaskSubmitRequest,
  type WebSearchResult,
  type MapsBatchRequestDto,
  type SearchBatchRequestDto,
} from '@trawl/contracts';
import { MessagingClient } from '@trawl/messaging';
import type { FastifyReply } from 'fastify';
import { ResultCacheService } from '../cache/result-cache.service.js';
import type { AuthenticatedRequest } from '../auth/api-key.guard.js';
import { KeyConcurrency } from '../limits/key-concurrency.service.js';
import { RawJson } from '../validation/raw-json.serializer.js';
import { withPlan } from './crawl-plan.policy.js';

/** A batch submission of one kind: the kind and its validated request. */
type BatchSubmission =
  | { kind: 'maps'; request: MapsBatchRequestDto }
  | { kind: 'search'; request: SearchBatchRequestDto }
  | { kind: 'url'; request: UrlBatchRequestDto };

/** The `task.submit.v1` payload: the batch, its owner (the caller's key) with the key's own cap, the idempotency key. */
function submission(batch: BatchSubmission, req: AuthenticatedRequest, idempotencyKey?: string): TaskSubmitRequest {
  const principal = req.principal;
  const cap = principal?.limits.outstanding;
  return {
    ...batch,
    ...(principal ? { apiKeyId: principal.id } : {}),
    ...(cap !== undefined ? { maxOutstanding: cap } : {}),
    ...(idempotencyKey !== undefined ? { idempotencyKey } : {}),
  };
}

/** The caller's key, or UNAUTHORIZED (`why`) on a route that counts per key and was called without one. */
function principalOf(req: AuthenticatedRequest, why: string): NonNullable<AuthenticatedRequest['principal']> {
  if (!req.principal) throw new TrawlError('UNAUTHORIZED', why);
  return req.principal;
}

/** Deadlines of the task operations (the native routes and the peers' alike call these methods). */
const SUBMIT_DEADLINE_MS = 30_000;
const LOOKUP_DEADLINE_MS = 5_000;
const CANCEL_DEADLINE_MS = 15_000;
/** Deadlines of the crawl operations, for the native crawl routes and the peers' alike. */
const CRAWL_START_DEADLINE_MS = 10_000;
const CRAWL_STATUS_DEADLINE_MS = 15_000;
const CRAWL_CANCEL_DEADLINE_MS = 10_000;
const MAP_REPLY_MARGIN_MS = 2_000;
/** The planner's answer to whether it would plan now (a configuration and a budget read): short. */
const CRAWL_PLAN_READY_DEADLINE_MS = 5_000;
/** The planner's refusals of a plan, met before the site is mapped (`plannerReady`). */
const PLANNER_REFUSALS: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['VALIDATION_FAILED', 'LLM_BUDGET_EXHAUSTED']);

/**
 * The native operations, as the peers' routes call them: the same DTO validation (defaults, bounds, URL rules), the
 * same NATS subjects, the same result cache scoped to the caller's key, the same tenant. A peer's route builds a
 * native request, calls one of these, and translates the answer: there is no other scrape, search or task path.
 */
@Injectable()
export class NativeOperations {
  constructor(
    private readonly messaging: MessagingClient,
    private readonly cache: ResultCacheService,
    private readonly concurrency: KeyConcurrency,
  ) {}

  /** POST /scrape. */
  scrape(input: Record<string, unknown>, req: AuthenticatedRequest, res: FastifyReply): Promise<ScrapeResult> {
    return this.scrapeValidated(parseDto(ScrapeRequestDto, input), req, res);
  }

  /**
   * POST /scrape, its body validated: the native routes call the `*Validated` methods with the body the validation
   * pipe built, so that each operation has one path. The tenant is the key the guard authenticated. A client that
   * hangs up before its answer abandons the scrape (ADR 0043): extractor-scrape stops the page.
   */
  scrapeValidated(body: ScrapeRequestDto, req: AuthenticatedRequest, res: FastifyReply): Promise<ScrapeResult> {
    const { maxAge, storeInCache, ...request } = body;
    const abandon = clientGone(res);
    return this.cache.serve('scrape', req, res, request, { maxAge, storeInCache }, () =>
      this.messaging.send(SUBJECTS.scrapePage, scrapePageRequest(request, req.principal?.id), {
        timeoutMs: request.timeout,
        ...(abandon ? { abandon } : {}),
      }),
    );
  }

  /** POST /extract/search. */
  search(input: Record<string, unknown>, req: AuthenticatedRequest, res: FastifyReply): Promise<WebSearchResult> {
    return this.searchValidated(parseDto(WebSearchRequestDto, input), req, res);
  }

  /** POST /extract/search, its body validated. */
  searchValidated(body: WebSearchRequestDto, req: AuthenticatedRequest, res: FastifyReply): Promise<WebSearchResult> {
    const { maxAge, storeInCache, ...request } = body;
    return this.cache.serve('search', req, res, request, { maxAge, storeInCache }, () =>
      this.messaging.send(SUBJECTS.searchWeb, request, { timeoutMs: request.timeout }),
    );
  }

  /**
   * POST /extract/search as the native route answers it: the extractor's reply forwarded as the JSON text it came in
   * (RawJson) when the cache is not consulted, the same value as `searchValidated` otherwise.
   */
  searchForRoute(
    body: WebSearchRequestDto,
    req: AuthenticatedRequest,
    res: FastifyReply,
  ): Promise<WebSearchResult | RawJson> {
    const { maxAge, storeInCache, ...request } = body;
    const options = { timeoutMs: request.timeout };
    return this.cache.serveRaw(
      'search',
      req,
      res,
      request,
      { maxAge, storeInCache },
      () => this.messaging.send(SUBJECTS.searchWeb, request, options),
      async () => new RawJson(await this.messaging.sendRaw(SUBJECTS.searchWeb, request, options)),
    );
  }

  /** POST /extract/search/maps. */
  maps(input: Record<string, unknown>, req: AuthenticatedRequest, res: FastifyReply): Promise<MapsSearchResponse> {
    return this.mapsValidated(parseDto(MapsSearchRequestDto, input), req, res);
  }

  /** POST /extract/search/maps, its body validated. */
  mapsValidated(body: MapsSearchRequestDto, req: AuthenticatedRequest, res: FastifyReply): Promise<MapsSearchResponse> {
    const { maxAge, storeInCache, ...request } = body;
    return this.cache.serve('maps', req, res, request, { maxAge, storeInCache }, () =>
      this.messaging.send(SUBJECTS.searchMaps, request, { timeoutMs: request.timeout }),
    );
  }

  /** POST /extract (its record), for one URL of a type. */
  extract<T extends ExtractType>(
    input: Record<string, unknown> & { type: T },
    req: AuthenticatedRequest,
    res: FastifyReply,
  ): Promise<ExtractRecordByType[T]> {
    return this.extractValidated(parseDto(ExtractRequestDto, input), req, res) as Promise<ExtractRecordByType[T]>;
  }

  /**
   * POST /extract (its record), its body validated: the record is what is cached (`maxAge`); the native route makes
   * the response around it for each call.
   */
  extractValidated(
    body: ExtractRequestDto,
    req: AuthenticatedRequest,
    res: FastifyReply,
  ): Promise<ExtractRecordByType[ExtractType]> {
    const { maxAge, storeInCache, ...request } = body;
    const abandon = clientGone(res);
    return this.cache.serve('extract', req, res, request, { maxAge, storeInCache }, () => {
      const call = extractUrlCall(request.type, {
        url: appendUrlParams(request.url, request.params),
        timeout: request.timeout,
        params: request.params,
        meta: request.meta,
        engine: request.engine,
        ...(request.scrapeOptions ? { scrapeOptions: request.scrapeOptions } : {}),
        tenant: req.principal?.id, // the authenticated key; ExtractRequestDto has no such field
      });
      // Type `scrape` is abandoned when the client hangs up, as POST /scrape (ADR 0043); the others' extractors do not
      // hear the notice.
      return this.messaging.send(call.subject, call.payload, {
        timeoutMs: request.timeout,
        ...(abandon ? { abandon } : {}),
      });
    });
  }

  /** POST /extractTask/batch: one job per URL, owned by the caller's key. */
  submitUrls(
    input: Record<string, unknown>,
    req: AuthenticatedRequest,
    idempotencyKey?: string,
  ): Promise<TaskSubmitReply> {
    return this.submitValidated({ kind: 'url', request: parseDto(UrlBatchRequestDto, input) }, req, idempotencyKey);
  }

  /** A batch submission (`task.submit.v1`), its request validated: owned by the caller's key, within its cap. */
  submitValidated(
    batch: BatchSubmission,
    req: AuthenticatedRequest,
    idempotencyKey?: string,
  ): Promise<TaskSubmitReply> {
    return this.messaging.send(SUBJECTS.taskSubmit, submission(batch, req, idempotencyKey), {
      timeoutMs: SUBMIT_DEADLINE_MS,
    });
  }

  /**
   * As `submitValidated`, the reply as the JSON text it arrived as: up to 10,000 job objects (4.7 MB) that the native
   * route writes into its answer without parsing and serialising them again.
   */
  submitValidatedRaw(batch: BatchSubmission, req: AuthenticatedRequest, idempotencyKey?: string): Promise<string> {
    return this.messaging.sendRaw(SUBJECTS.taskSubmit, submission(batch, req, idempotencyKey), {
      timeoutMs: SUBMIT_DEADLINE_MS,
    });
  }

  /** GET /extractTask/{jobId}: only the submitting key finds its task. */
  lookup(jobId: string, req: AuthenticatedRequest): Promise<TaskRecord> {
    return this.messaging.send(
      SUBJECTS.taskGet,
      { jobId, apiKeyId: req.principal?.id },
      { timeoutMs: LOOKUP_DEADLINE_MS },
    );
  }

  /** DELETE /extractTask/{jobId}. */
  cancel(jobId: string, req: AuthenticatedRequest): Promise<TaskRecord> {
    return this.messaging.send(
      SUBJECTS.taskCancel,
      { jobId, apiKeyId: req.principal?.id },
      { timeoutMs: CANCEL_DEADLINE_MS },
    );
  }

  /**
   * POST /crawl: the crawl's id at once; owned by the caller's key. With `prompt`, the crawl is planned first
   * (`planCrawl`) and the options the body leaves out are the plan's (ADR 0042); the answer carries the plan. `input` is
   * the body as sent (before defaults), so that what the caller gave is known.
   */
  async crawlStart(input: Record<string, unknown>, req: AuthenticatedRequest): Promise<CrawlStartReply> {
    let request = parseDto(CrawlRequestDto, input);
    let plan: CrawlPlan | undefined;
    if (typeof request.prompt === 'string') {
      plan = await this.planCrawl(request.url, request.prompt, 'host', req);
      request = parseDto(CrawlRequestDto, withPlan(input, plan.options));
    }
    // The crawl runs on options: its prompt is not kept with it.
    delete request.prompt;
    const reply = await this.messaging.send(
      SUBJECTS.crawlStart,
      { request, ...(req.principal ? { apiKeyId: req.principal.id } : {}) },
      { timeoutMs: CRAWL_START_DEADLINE_MS },
    );
    return plan ? { ...reply, plan } : reply;
  }

  /** POST /crawl/plan: the options a crawl from `url` would take for `prompt`; nothing is crawled. */
  crawlPlan(input: Record<string, unknown>, req: AuthenticatedRequest): Promise<CrawlPlan> {
    const body = parseDto(CrawlPlanBodyDto, input);
    return this.planCrawl(body.url, body.prompt, 'host', req);
  }

  /**
   * A crawl planned from a prompt (ADR 0042): the site mapped first (its first CRAWL_PLAN_LIMITS.siteUrls URLs, by
   * task-service through the SSRF guard), then extractor-scrape's model asked with them, on the key's token budget.
   * A start URL the guard refuses or a body out of bounds fails the plan as it would fail the crawl; a site that cannot
   * be mapped otherwise is planned from the prompt alone, and the plan's warnings say so.
   */
  async planCrawl(url: string, prompt: string, scope: CrawlPlanScope, req: AuthenticatedRequest): Promise<CrawlPlan> {
    const apiKeyId = req.principal?.id;
    await this.plannerReady(apiKeyId);
    const { links, warning } = await this.siteSample(url, req);
    const plan = await this.messaging.send(
      SUBJECTS.crawlPlan,
      { url, prompt, scope, siteUrls: links, ...(apiKeyId !== undefined ? { apiKeyId } : {}) },
      { timeoutMs: CRAWL_PLAN_LIMITS.deadlineMs },
    );
    return warning ? { ...plan, warnings: [warning, ...plan.warnings] } : plan;
  }

  /**
   * Asks extractor-scrape whether it would plan for this key now, before the site is mapped: a plan it would refuse (no
   * model configured, the key's tokens spent) is refused at once, with its own error, and costs the site nothing.
   * Any other failure of the question (a replica of an older version that does not serve it, a timeout) is left to
   * the plan itself to meet.
   */
  private async plannerReady(apiKeyId: string | undefined): Promise<void> {
    try {
      await this.messaging.send(SUBJECTS.crawlPlanReady, apiKeyId !== undefined ? { apiKeyId } : {}, {
        timeoutMs: CRAWL_PLAN_READY_DEADLINE_MS,
      });
    } catch (e) {
      if (e instanceof TrawlError && PLANNER_REFUSALS.has(e.code)) throw e;
    }
  }

  /** The site's first URLs for a plan, or none and why. */
  private async siteSample(url: string, req: AuthenticatedRequest): Promise<{ links: string[]; warning?: string }> {
    try {
      const { links } = await this.map(
        { url, limit: CRAWL_PLAN_LIMITS.siteUrls, timeout: CRAWL_PLAN_LIMITS.mapTimeoutMs },
        req,
      );
      return { links: links.map((l) => l.url) };
    } catch (e) {
      if (!(e instanceof TrawlError) || e.code === 'URL_NOT_ALLOWED' || e.code === 'VALIDATION_FAILED') throw e;
      return {
        links: [],
        warning: `the site could not be mapped (${e.code}: ${e.message}); planned from the prompt alone`,
      };
    }
  }

  /** GET /crawl/{id}: one page of documents from `cursor`; only the starting key finds it (else TASK_NOT_FOUND). */
  crawlGet(id: string, req: AuthenticatedRequest, cursor?: number): Promise<CrawlStatusReply> {
    return this.messaging.send(
      SUBJECTS.crawlGet,
      { id, apiKeyId: req.principal?.id, ...(cursor !== undefined ? { cursor } : {}) },
      { timeoutMs: CRAWL_STATUS_DEADLINE_MS },
    );
  }

  /** DELETE /crawl/{id}. */
  crawlCancel(id: string, req: AuthenticatedRequest): Promise<CrawlStatusReply> {
    return this.messaging.send(
      SUBJECTS.crawlCancel,
      { id, apiKeyId: req.principal?.id },
      { timeoutMs: CRAWL_CANCEL_DEADLINE_MS },
    );
  }

  /** GET /crawl/{id}/errors: the pages that ended in an error and what robots.txt refused; only the starting key. */
  crawlErrors(id: string, req: AuthenticatedRequest): Promise<CrawlErrorsResult> {
    return this.messaging.send(
      SUBJECTS.crawlErrors,
      { id, apiKeyId: req.principal?.id },
      { timeoutMs: CRAWL_STATUS_DEADLINE_MS },
    );
  }

  /** GET /crawl/active: the calling key's running crawls. */
  crawlActive(req: AuthenticatedRequest): Promise<ActiveCrawlsResult> {
    return this.messaging.send(SUBJECTS.crawlActive, req.principal ? { apiKeyId: req.principal.id } : {}, {
      timeoutMs: CRAWL_STATUS_DEADLINE_MS,
    });
  }

  /**
   * GET /usage/tokens: the calling key's language-model tokens, this month and the `months - 1` before it, and its
   * budget (ADR 0040); the peers' usage routes read the same.
   */
  tokenUsage(req: AuthenticatedRequest, months: number): Promise<LlmTokensUsage> {
    if (!req.principal) throw new TrawlError('UNAUTHORIZED', 'token usage is counted per API key; none was given');
    return this.messaging.send(
      SUBJECTS.tokensUsage,
      { apiKeyId: req.principal.id, months },
      { timeoutMs: LOOKUP_DEADLINE_MS },
    );
  }

  /**
   * GET /usage/queue: where the calling key's jobs stand in the task queues (task-service) and its requests in flight
   * at the gateway (ADR 0041); Firecrawl's queue status reads the same.
   */
  async queueUsage(req: AuthenticatedRequest): Promise<KeyQueueUsage> {
    const { id, limits } = principalOf(req, 'the queue is kept per API key; none was given');
    const [jobs, requests] = await Promise.all([
      this.messaging.send(
        SUBJECTS.taskQueue,
        { apiKeyId: id, ...(limits.outstanding !== undefined ? { maxOutstanding: limits.outstanding } : {}) },
        { timeoutMs: LOOKUP_DEADLINE_MS },
      ),
      this.requestsInFlight(req),
    ]);
    return { jobs, requests };
  }

  /**
   * The calling key's other requests in flight on every gateway replica (this one left out: it holds a slot too) and
   * its concurrency limit: `requests` of GET /usage/queue, and Firecrawl's concurrency check.
   */
  async requestsInFlight(req: AuthenticatedRequest): Promise<KeyQueueUsage['requests']> {
    const { id, limits } = principalOf(req, 'requests in flight are counted per API key; none was given');
    const inFlight = await this.concurrency.inFlight(id);
    return { inFlight: Math.max(0, inFlight - 1), max: limits.concurrency };
  }

  /** POST /map. */
  map(input: Record<string, unknown>, req: AuthenticatedRequest): Promise<MapSiteReply> {
    const request = parseDto(MapRequestDto, input);
    return this.messaging.send(
      SUBJECTS.mapSite,
      { request, ...(req.principal ? { apiKeyId: req.principal.id } : {}) },
      { timeoutMs: request.timeout + MAP_REPLY_MARGIN_MS },
    );
  }
}

const goneSignals = new WeakMap<object, AbortSignal>();

/**
 * Aborts when the HTTP client closes its connection before its answer was sent (one signal per response, however
 * many scrapes it waits for); undefined for a reply with no socket behind it.
 */
function clientGone(res: FastifyReply): AbortSignal | undefined {
  const raw = res.raw as ServerResponse | undefined;
  if (!raw || typeof raw.once !== 'function') return undefined;
  let signal = goneSignals.get(raw);
  if (signal) return signal;
  const controller = new AbortController();
  signal = controller.signal;
  goneSignals.set(raw, signal);
  raw.once('close', () => {
    if (!raw.writableFinished)
      controller.abort(new TrawlError('TASK_CANCELLED', 'the client closed the connection before its answer'));
  });
  return signal;
}
