import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { GatewayEnv } from '@trawl/config';
import { TrawlError, type TaskRecord } from '@trawl/contracts';
import type { AuthenticatedRequest } from '../../auth/api-key.guard.js';
import { GATEWAY_ENV } from '../../gateway.tokens.js';
import { GatewayRedisService } from '../../redis/gateway-redis.service.js';
import { NativeOperations } from '../native-operations.service.js';
import { BATCH_PAGE_SIZE, type BatchState } from './firecrawl.constants.js';
import { batchStateOf, expiresAtOf, pageOf, toNativeBatch, type BatchPage } from './firecrawl-batch.mapper.js';
import { FirecrawlBatchStore, type FirecrawlBatch } from './firecrawl-batch.store.js';
import type { FirecrawlDocument } from './firecrawl-scrape.mapper.js';

/** Task lookups at once while a batch's status is read. */
const LOOKUP_CONCURRENCY = 16;

export interface BatchStatus {
  status: BatchState;
  completed: number;
  total: number;
  creditsUsed: number;
  expiresAt: string;
  data: FirecrawlDocument[];
  /** The next page's offset, when more documents remain. */
  nextSkip?: number;
  warning?: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Firecrawl's batch scrape as a native URL batch (`task.submit.v1`, type `scrape`, one task per URL, owned by the
 * caller's key): started, read and cancelled through the native task operations. Only the batch's index (which
 * tasks, whose) is kept here. A batch is final in bounded time: past COMPAT_BATCH_DEADLINE_MS its unfinished tasks
 * are cancelled and it answers `failed`, whatever became of its extractors.
 */
@Injectable()
export class FirecrawlBatchService {
  private readonly store: FirecrawlBatchStore;

  constructor(
    private readonly native: NativeOperations,
    redis: GatewayRedisService,
    @Inject(GATEWAY_ENV) private readonly env: GatewayEnv,
  ) {
    this.store = new FirecrawlBatchStore(redis.client);
  }

  private ownerOf(req: AuthenticatedRequest): string {
    return req.principal?.id ?? '-';
  }

  async start(
    input: unknown,
    req: AuthenticatedRequest,
    version: 'v1' | 'v2',
    idempotencyKey?: string,
  ): Promise<{ id: string; invalidURLs: string[]; warning?: string }> {
    if (!isRecord(input)) {
      throw new TrawlError('VALIDATION_FAILED', 'request body must be a JSON object', { field: 'body' });
    }
    // v2 sets invalid URLs aside by default; v1 refuses the batch (Firecrawl's defaults).
    const mapping = toNativeBatch(input, version === 'v2');
    // The batch's id first: its webhook events (batch_scrape.*, ADR 0028) carry it.
    const id = randomUUID();
    const reply = await this.native.submitUrls(
      {
        ...mapping.native,
        urls: mapping.urls,
        ...(mapping.webhook !== undefined ? { webhook: mapping.webhook } : {}),
        ...(mapping.webhookOptions ? { webhookOptions: { ...mapping.webhookOptions, batchId: id } } : {}),
      },
      req,
      idempotencyKey,
    );
    const now = Date.now();
    const batch: FirecrawlBatch = {
      id,
      owner: this.ownerOf(req),
      jobIds: reply.jobs.map((j) => j.id),
      formats: mapping.formats,
      invalidURLs: mapping.invalidURLs,
      warnings: mapping.warnings,
      createdAt: now,
      deadlineAt: now + this.env.COMPAT_BATCH_DEADLINE_MS,
    };
    await this.store.save(batch);
    return {
      id: batch.id,
      invalidURLs: batch.invalidURLs,
      ...(batch.warnings.length > 0 ? { warning: batch.warnings.join('; ') } : {}),
    };
  }

  private async batchOf(id: string, req: AuthenticatedRequest): Promise<FirecrawlBatch> {
    const batch = /^[0-9a-f-]{36}$/.test(id) ? await this.store.find(this.ownerOf(req), id) : null;
    // Another key's batch is answered exactly as an unknown one.
    if (!batch) throw new TrawlError('NOT_FOUND', 'batch scrape job not found', { field: 'id' });
    return batch;
  }

  private async records(batch: FirecrawlBatch, req: AuthenticatedRequest): Promise<(TaskRecord | null)[]> {
    const out: (TaskRecord | null)[] = new Array<TaskRecord | null>(batch.jobIds.length).fill(null);
    let next = 0;
    const lane = async (): Promise<void> => {
      while (next < batch.jobIds.length) {
        const i = next++;
        out[i] = await this.native.lookup(batch.jobIds[i] as string, req).catch((e: unknown) => {
          if (e instanceof TrawlError && e.code === 'TASK_NOT_FOUND') return null;
          throw e;
        });
      }
    };
    await Promise.all(Array.from({ length: Math.min(LOOKUP_CONCURRENCY, batch.jobIds.length) }, lane));
    return out;
  }

  /** Cancels the batch's unfinished tasks; one that finished meanwhile (409) or is gone (404) is left as it is. */
  private async cancelUnfinished(batch: FirecrawlBatch, pages: readonly BatchPage[], req: AuthenticatedRequest) {
    await Promise.all(
      batch.jobIds.map((jobId, i) =>
        pages[i]?.state === 'scraping'
          ? this.native.cancel(jobId, req).catch((e: unknown) => {
              if (e instanceof TrawlError && (e.code === 'TASK_FINISHED' || e.code === 'TASK_NOT_FOUND')) return;
              throw e;
            })
          : undefined,
      ),
    );
  }

  async status(id: string, req: AuthenticatedRequest, skip = 0): Promise<BatchStatus> {
    const batch = await this.batchOf(id, req);
    const pages = (await this.records(batch, req)).map((r) => pageOf(r, batch.formats));
    const pastDeadline = Date.now() >= batch.deadlineAt;
    const status = batchStateOf(pages, batch.ended, pastDeadline);
    if (status === 'failed' && !batch.ended) {
      // The deadline passed: what is left is cancelled, and the batch stays failed from now on.
      await this.cancelUnfinished(batch, pages, req);
      await this.store.save({ ...batch, ended: 'failed' });
    }
    const docs = pages.flatMap((p) => (p.document ? [p.document] : []));
    const from = Math.max(0, Math.floor(skip));
    const data = docs.slice(from, from + BATCH_PAGE_SIZE);
    const more = from + BATCH_PAGE_SIZE < docs.length;
    const failed = pages.filter((p) => p.state === 'failed').length;
    const warnings = [...batch.warnings];
    if (status === 'failed') {
      warnings.push('the batch passed its deadline; its unfinished pages were cancelled');
    }
    if (failed > 0) warnings.push(`${failed} page(s) failed`);
    return {
      status,
      completed: docs.length,
      total: batch.jobIds.length,
      creditsUsed: docs.length,
      expiresAt: expiresAtOf(batch.createdAt),
      data,
      ...(more ? { nextSkip: from + BATCH_PAGE_SIZE } : {}),
      ...(warnings.length > 0 ? { warning: warnings.join('; ') } : {}),
    };
  }

  /** Firecrawl's `/errors` of a batch: each failed page with its URL and why; Trawl has no robots.txt refusals here. */
  async errors(
    id: string,
    req: AuthenticatedRequest,
  ): Promise<{ errors: { id: string; url: string; error: string }[]; robotsBlocked: string[] }> {
    const batch = await this.batchOf(id, req);
    const records = await this.records(batch, req);
    const errors = records.flatMap((record, i) => {
      const page = pageOf(record, batch.formats);
      if (page.state !== 'failed') return [];
      const url = typeof record?.params.url === 'string' ? record.params.url : '';
      return [{ id: batch.jobIds[i] as string, url, error: page.error ?? 'failed' }];
    });
    return { errors, robotsBlocked: [] };
  }

  async cancel(id: string, req: AuthenticatedRequest): Promise<void> {
    const batch = await this.batchOf(id, req);
    if (batch.ended) return;
    const pages = (await this.records(batch, req)).map((r) => pageOf(r, batch.formats));
    await this.cancelUnfinished(batch, pages, req);
    await this.store.save({ ...batch, ended: 'cancelled' });
  }
}
