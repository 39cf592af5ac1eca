import type {
  ActiveCrawls,
  CrawlErrors,
  CrawlPlan,
  CrawlPlanBody,
  CrawlRequest,
  CrawlStartReply,
  CrawlStatus,
  ExtractRequest,
  ExtractResponse_mp_maps,
  ExtractResponse_mp_search,
  ExtractResponse_retail,
  ExtractResponse_scrape,
  KeyQueueUsage,
  LlmTokensUsage,
  MapRequest,
  MapSiteReply,
  MapsBatchJob,
  MapsBatchRequest,
  MapsSearchRequest,
  MapsSearchResponse,
  ScrapeRequest,
  ScrapeResult,
  SearchBatchJob,
  SearchBatchRequest,
  TaskRecord,
  UrlBatchJob,
  UrlBatchRequest,
  WebSearchRequest,
  WebSearchResult,
} from './api-types.generated.js';
import { TrawlApiError, type ErrorCode } from './trawl-api.error.js';

/** The `/extract` response for each `type`. */
export interface ExtractResponseByType {
  retail: ExtractResponse_retail;
  'mp-maps': ExtractResponse_mp_maps;
  'mp-search': ExtractResponse_mp_search;
  scrape: ExtractResponse_scrape;
}
export type ExtractType = keyof ExtractResponseByType;

/** The operations: method and path under the base URL (a test checks them against openapi.json). */
export const CLIENT_OPERATIONS = {
  search: { method: 'POST', path: '/extract/search' },
  maps: { method: 'POST', path: '/extract/search/maps' },
  extract: { method: 'POST', path: '/extract' },
  scrape: { method: 'POST', path: '/scrape' },
  submitMapsBatch: { method: 'POST', path: '/extractTask/batch/maps' },
  submitSearchBatch: { method: 'POST', path: '/extractTask/batch/search' },
  submitUrlBatch: { method: 'POST', path: '/extractTask/batch' },
  getTask: { method: 'GET', path: '/extractTask/{jobId}' },
  cancelTask: { method: 'DELETE', path: '/extractTask/{jobId}' },
  crawl: { method: 'POST', path: '/crawl' },
  planCrawl: { method: 'POST', path: '/crawl/plan' },
  getCrawl: { method: 'GET', path: '/crawl/{id}' },
  cancelCrawl: { method: 'DELETE', path: '/crawl/{id}' },
  getCrawlErrors: { method: 'GET', path: '/crawl/{id}/errors' },
  activeCrawls: { method: 'GET', path: '/crawl/active' },
  map: { method: 'POST', path: '/map' },
  tokenUsage: { method: 'GET', path: '/usage/tokens' },
  queueUsage: { method: 'GET', path: '/usage/queue' },
} as const;

/** Options of a batch submission. */
export interface SubmitOptions {
  /**
   * Sent as `Idempotency-Key`: a retry with the same key and the same body within 24 h answers the same job objects
   * and creates nothing; the same key with another body fails with `IDEMPOTENCY_KEY_REUSED` (409). Use a fresh one
   * (e.g. `crypto.randomUUID()`) per submission, and the same one for its retries. 1-255 visible ASCII characters.
   */
  idempotencyKey?: string;
  /** Passed to fetch (e.g. `signal`). */
  init?: RequestInit;
}

export interface TrawlClientOptions {
  /** e.g. `http://127.0.0.1:8080/api/openapi/v1` */
  baseUrl: string;
  apiKey: string;
  /** A fetch implementation; the global one (Node 20+) by default. */
  fetch?: typeof fetch;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
}

/** The fetch options of a submission, with its `Idempotency-Key` header when there is one. */
function withIdempotencyKey({ idempotencyKey, init }: SubmitOptions): RequestInit | undefined {
  if (idempotencyKey === undefined) return init;
  return {
    ...init,
    headers: { ...(init?.headers as Record<string, string> | undefined), 'idempotency-key': idempotencyKey },
  };
}

interface Envelope {
  requestId?: unknown;
  code?: unknown;
  message?: unknown;
  data?: unknown;
}

/**
 * A typed client for the Trawl Extraction Gateway API v1: one method per operation, `data` of the envelope as the
 * result, and every failure envelope as a `TrawlApiError` carrying `code`, `retryable` and `requestId`.
 */
export class TrawlClient {
  private readonly baseUrl: string;
  private readonly fetchImpl: typeof fetch;

  constructor(private readonly options: TrawlClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.fetchImpl = options.fetch ?? globalThis.fetch;
  }

  /** POST /extract/search: organic results, people also ask, related searches, knowledge panel. */
  search(body: WebSearchRequest, init?: RequestInit): Promise<WebSearchResult> {
    return this.call('search', body, init);
  }

  /** POST /extract/search/maps: map places. */
  maps(body: MapsSearchRequest, init?: RequestInit): Promise<MapsSearchResponse> {
    return this.call('maps', body, init);
  }

  /** POST /extract: one URL; the result's type follows `type`. */
  extract<T extends ExtractType>(
    body: ExtractRequest & { type: T },
    init?: RequestInit,
  ): Promise<ExtractResponseByType[T]> {
    return this.call('extract', body, init);
  }

  /** POST /scrape: markdown and/or HTML of a page; a screenshot, actions, location and mobile (ADR 0019); json and summary (ADR 0029). */
  scrape(body: ScrapeRequest, init?: RequestInit): Promise<ScrapeResult> {
    return this.call('scrape', body, init);
  }

  /** POST /extractTask/batch/maps: one job; the outcome goes to the webhook. */
  submitMapsBatch(body: MapsBatchRequest, options: SubmitOptions = {}): Promise<MapsBatchJob[]> {
    return this.call('submitMapsBatch', body, withIdempotencyKey(options));
  }

  /** POST /extractTask/batch/search: one job; the outcome goes to the webhook. */
  submitSearchBatch(body: SearchBatchRequest, options: SubmitOptions = {}): Promise<SearchBatchJob[]> {
    return this.call('submitSearchBatch', body, withIdempotencyKey(options));
  }

  /** POST /extractTask/batch: one job per URL; each outcome goes to the webhook. */
  submitUrlBatch(body: UrlBatchRequest, options: SubmitOptions = {}): Promise<UrlBatchJob[]> {
    return this.call('submitUrlBatch', body, withIdempotencyKey(options));
  }

  /** GET /extractTask/{jobId} */
  getTask(jobId: string, init?: RequestInit): Promise<TaskRecord> {
    return this.call('getTask', undefined, init, { jobId });
  }

  /**
   * DELETE /extractTask/{jobId}: cancels a task. A waiting task never runs; a running one's result is discarded; a
   * batch cancels its queries. Its outcome (`failed`, `TASK_CANCELLED`) goes to the webhook. Answers the task record;
   * a finished task throws `TASK_FINISHED` (409).
   */
  cancelTask(jobId: string, init?: RequestInit): Promise<TaskRecord> {
    return this.call('cancelTask', undefined, init, { jobId });
  }

  /** POST /crawl: starts a crawl; answers its id at once. */
  crawl(body: CrawlRequest, init?: RequestInit): Promise<CrawlStartReply> {
    return this.call('crawl', body, init);
  }

  /**
   * POST /crawl/plan: the options a crawl from `url` would take for `prompt`, chosen by the server's language model
   * from the site's map; nothing is crawled. Pass `prompt` to `crawl` to plan and start at once.
   */
  planCrawl(body: CrawlPlanBody, init?: RequestInit): Promise<CrawlPlan> {
    return this.call('planCrawl', body, init);
  }

  /**
   * GET /crawl/{id}: the crawl's status and one page of its documents. Pass the previous page's `next` as `next` to
   * read the following page (it is a URL of the same server).
   */
  async getCrawl(id: string, options: { next?: string; init?: RequestInit } = {}): Promise<CrawlStatus> {
    const cursor = options.next ? new URL(options.next).searchParams.get('cursor') : null;
    return this.call(
      'getCrawl',
      undefined,
      options.init,
      { id },
      cursor ? `?cursor=${encodeURIComponent(cursor)}` : '',
    );
  }

  /** DELETE /crawl/{id}: no new page starts; pages in flight are abandoned (their scrapes stopped). */
  cancelCrawl(id: string, init?: RequestInit): Promise<CrawlStatus> {
    return this.call('cancelCrawl', undefined, init, { id });
  }

  /** GET /crawl/{id}/errors: the pages that ended in an error and the URLs robots.txt kept the crawl from. */
  getCrawlErrors(id: string, init?: RequestInit): Promise<CrawlErrors> {
    return this.call('getCrawlErrors', undefined, init, { id });
  }

  /** GET /crawl/active: the key's running crawls, oldest first. */
  activeCrawls(init?: RequestInit): Promise<ActiveCrawls> {
    return this.call('activeCrawls', undefined, init);
  }

  /** POST /map: the site's URLs from its sitemaps and links, without scraping every page. */
  map(body: MapRequest, init?: RequestInit): Promise<MapSiteReply> {
    return this.call('map', body, init);
  }

  /**
   * GET /usage/tokens: the language-model tokens the key's `json` and `summary` formats spent per calendar month
   * (UTC), `months` back (1-24, default 12), with its monthly budget and what is left of it.
   */
  tokenUsage(options: { months?: number; init?: RequestInit } = {}): Promise<LlmTokensUsage> {
    const query = options.months !== undefined ? `?months=${encodeURIComponent(String(options.months))}` : '';
    return this.call('tokenUsage', undefined, options.init, {}, query);
  }

  /**
   * GET /usage/queue: where the key's jobs stand (outstanding, running, waiting, its cap, its last success) and its
   * other requests in flight against its concurrency limit.
   */
  queueUsage(init?: RequestInit): Promise<KeyQueueUsage> {
    return this.call('queueUsage', undefined, init);
  }

  private async call<R>(
    operation: keyof typeof CLIENT_OPERATIONS,
    body: unknown,
    init: RequestInit | undefined,
    pathParams: Record<string, string> = {},
    query = '',
  ): Promise<R> {
    const { method, path } = CLIENT_OPERATIONS[operation];
    const url =
      this.baseUrl +
      path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(pathParams[name] ?? '')) +
      query;
    const headers: Record<string, string> = { 'x-api-key': this.options.apiKey, ...this.options.headers };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await this.fetchImpl(url, {
      ...init,
      method,
      headers: { ...headers, ...(init?.headers as Record<string, string> | undefined) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let envelope: Envelope;
    try {
      envelope = JSON.parse(text) as Envelope;
    } catch {
      throw new TrawlApiError({
        status: res.status,
        code: res.status >= 500 ? 'INTERNAL' : 'MALFORMED_JSON',
        message: `not a JSON envelope (HTTP ${res.status}): ${text.slice(0, 200)}`,
        retryable: res.status >= 500,
        requestId: res.headers.get('x-request-id') ?? undefined,
      });
    }
    if (res.ok && envelope.code === 0) return envelope.data as R;
    const data = (envelope.data ?? {}) as { error?: unknown; retryable?: unknown; field?: unknown };
    throw new TrawlApiError({
      status: res.status,
      code: (typeof data.error === 'string' ? data.error : 'INTERNAL') as ErrorCode,
      message: typeof envelope.message === 'string' ? envelope.message : `HTTP ${res.status}`,
      retryable: data.retryable === true,
      requestId:
        typeof envelope.requestId === 'string' ? envelope.requestId : (res.headers.get('x-request-id') ?? undefined),
      field: typeof data.field === 'string' ? data.field : undefined,
    });
  }
}
