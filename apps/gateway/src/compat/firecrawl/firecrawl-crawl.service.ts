import { Injectable } from '@nestjs/common';
import { CRAWL_ID_PATTERN, CrawlPlanBodyDto, parseDto, TrawlError } from '@trawl/contracts';
import type { AuthenticatedRequest } from '../../auth/api-key.guard.js';
import { GatewayRedisService } from '../../redis/gateway-redis.service.js';
import { withPlan } from '../crawl-plan.policy.js';
import { NativeOperations } from '../native-operations.service.js';
import { expiresAtOf } from './firecrawl-batch.mapper.js';
import { FirecrawlBatchStore } from './firecrawl-batch.store.js';
import {
  crawlerOptionsOf,
  crawlStatusOf,
  firecrawlPlanOptionsOf,
  mapLinksOf,
  toNativeCrawl,
  toNativeMap,
  type CrawlPageRef,
  type FirecrawlCrawlStatus,
} from './firecrawl-crawl.mapper.js';

/** What the Firecrawl side remembers of a crawl it started: when (its `expiresAt`) and what it could not honour. */
interface FirecrawlCrawl {
  id: string;
  owner: string;
  createdAt: number;
  warnings: string[];
}

const CRAWL_PREFIX = 'trawl:compat:firecrawl-crawl:';

function bodyOf(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new TrawlError('VALIDATION_FAILED', 'request body must be a JSON object', { field: 'body' });
  }
  return body as Record<string, unknown>;
}

/**
 * Firecrawl's crawl and map as translations of the native crawl operations (ADR 0026, 0028): the body through the
 * tables onto a native request, the native answer back into Firecrawl's. The crawl itself (its state, owner, pages,
 * documents) is task-service's; this keeps only when a crawl started here began and its warnings.
 */
@Injectable()
export class FirecrawlCrawlService {
  private readonly store: FirecrawlBatchStore<FirecrawlCrawl>;

  constructor(
    private readonly native: NativeOperations,
    redis: GatewayRedisService,
  ) {
    this.store = new FirecrawlBatchStore<FirecrawlCrawl>(redis.client, CRAWL_PREFIX);
  }

  private ownerOf(req: AuthenticatedRequest): string {
    return req.principal?.id ?? '-';
  }

  /**
   * `/v{1,2}/crawl`. With `prompt` (ADR 0042), the crawl is planned first, as Firecrawl does: the plan's options in
   * Firecrawl's names fill what the body leaves out (the caller's stand), then the whole body is translated; the answer
   * carries `promptGeneratedOptions` and `finalCrawlerOptions`, and the plan's warnings join the crawl's.
   */
  async start(
    input: unknown,
    req: AuthenticatedRequest,
  ): Promise<{
    id: string;
    warning?: string;
    promptGeneratedOptions?: Record<string, unknown>;
    finalCrawlerOptions?: Record<string, unknown>;
  }> {
    let body = bodyOf(input);
    let planned: { options: Record<string, unknown>; warnings: string[] } | undefined;
    if (body.prompt !== undefined && body.prompt !== null) {
      const entireDomain = body.crawlEntireDomain === true || body.allowBackwardLinks === true;
      const ask = parseDto(CrawlPlanBodyDto, { url: body.url, prompt: body.prompt });
      const plan = await this.native.planCrawl(ask.url, ask.prompt, entireDomain ? 'host' : 'path', req);
      planned = { options: firecrawlPlanOptionsOf(plan.options, body), warnings: plan.warnings };
      body = withPlan(body, planned.options);
    }
    const mapping = toNativeCrawl(body);
    const warnings = [...(planned?.warnings.map((w) => `prompt: ${w}`) ?? []), ...mapping.warnings];
    const { id } = await this.native.crawlStart(mapping.native, req);
    await this.store.save({ id, owner: this.ownerOf(req), createdAt: Date.now(), warnings });
    return {
      id,
      ...(warnings.length > 0 ? { warning: warnings.join('; ') } : {}),
      ...(planned ? { promptGeneratedOptions: planned.options, finalCrawlerOptions: crawlerOptionsOf(body) } : {}),
    };
  }

  /**
   * `/v2/crawl/params-preview` (the SDK's `crawlParamsPreview`): the options a crawl would take for the prompt, in
   * Firecrawl's names, with the start URL; nothing is crawled. The scope told to the model is Firecrawl's default one
   * (paths under the start URL's).
   */
  async preview(
    input: unknown,
    req: AuthenticatedRequest,
  ): Promise<{ data: Record<string, unknown>; warning?: string }> {
    const body = bodyOf(input);
    const ask = parseDto(CrawlPlanBodyDto, { url: body.url, prompt: body.prompt });
    const plan = await this.native.planCrawl(ask.url, ask.prompt, 'path', req);
    return {
      data: { url: ask.url, ...firecrawlPlanOptionsOf(plan.options) },
      ...(plan.warnings.length > 0 ? { warning: plan.warnings.join('; ') } : {}),
    };
  }

  /** A crawl id, or the answer an unknown one gets (Firecrawl's 404): another key's id is answered the same. */
  private idOf(id: string): string {
    if (!CRAWL_ID_PATTERN.test(id)) throw new TrawlError('TASK_NOT_FOUND', 'crawl job not found', { field: 'id' });
    return id;
  }

  async status(
    id: string,
    req: AuthenticatedRequest,
    at: CrawlPageRef & { skipWithoutCursor?: boolean },
  ): Promise<FirecrawlCrawlStatus & { warning?: string }> {
    const reply = await this.native.crawlGet(this.idOf(id), req, at.cursor);
    const record = await this.store.find(this.ownerOf(req), id);
    const status = crawlStatusOf(reply, at);
    const warnings = [...(record?.warnings ?? [])];
    if (at.skipWithoutCursor) {
      warnings.push("skip: a crawl's pages are read from the cursor of `next`; the first page was answered");
    }
    return {
      ...status,
      ...(record ? { expiresAt: expiresAtOf(record.createdAt) } : {}),
      ...(warnings.length > 0 ? { warning: warnings.join('; ') } : {}),
    };
  }

  async cancel(id: string, req: AuthenticatedRequest): Promise<void> {
    await this.native.crawlCancel(this.idOf(id), req);
  }

  /** Firecrawl's crawl `/errors`: each failed page with an id, when, its URL, code and message; robots.txt's refusals. */
  async errors(
    id: string,
    req: AuthenticatedRequest,
  ): Promise<{
    errors: { id: string; timestamp: string; url: string; code: string; error: string }[];
    robotsBlocked: string[];
  }> {
    const reply = await this.native.crawlErrors(this.idOf(id), req);
    return {
      errors: reply.errors.map((e, i) => ({
        id: `${id}-${i + 1}`,
        timestamp: e.timestamp,
        url: e.url,
        code: e.code,
        error: e.error,
      })),
      robotsBlocked: reply.robotsBlocked,
    };
  }

  /** Firecrawl's `/crawl/active`: the key's running crawls (`teamId` is the key's id: Trawl's tenant). */
  async active(
    req: AuthenticatedRequest,
  ): Promise<{ id: string; teamId: string; url: string; options: Record<string, unknown> }[]> {
    const reply = await this.native.crawlActive(req);
    return reply.crawls.map((c) => ({ id: c.id, teamId: this.ownerOf(req), url: c.url, options: c.options }));
  }

  async map(
    input: unknown,
    req: AuthenticatedRequest,
    version: 'v1' | 'v2',
  ): Promise<{ links: ReturnType<typeof mapLinksOf>; warning?: string }> {
    const mapping = toNativeMap(bodyOf(input));
    const reply = await this.native.map(mapping.native, req);
    return {
      links: mapLinksOf(reply.links, version),
      ...(mapping.warnings.length > 0 ? { warning: mapping.warnings.join('; ') } : {}),
    };
  }
}
