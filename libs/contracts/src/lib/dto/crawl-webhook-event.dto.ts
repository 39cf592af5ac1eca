import 'reflect-metadata';
import { Type } from 'class-transformer';
import {
  IsArray,
  IsIn,
  IsInt,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  Min,
  Validate,
  ValidateNested,
} from 'class-validator';
import {
  BATCH_SCRAPE_EVENTS,
  CRAWL_EVENTS,
  type BatchEventBody,
  type BatchScrapeEventName,
  type BatchWebhookEvent,
  CRAWL_ID_PATTERN,
  CRAWL_STATUSES,
  type CrawlEventBody,
  type CrawlEventName,
  type CrawlStatus,
  type CrawlWebhookEvent,
} from '../crawl.types.js';
import type { TraceCarrier } from '../task.types.js';
import type { CrawlDocument } from '../crawl-document.schema.js';
import { IsWebhookMetadata } from './crawl-request.dto.js';
import { IsTraceCarrier } from './trace-carrier.validator.js';
import { IsHeaderMap } from './url-params.validator.js';

/** Why a crawl failed: a code of docs/errors.md and its message. */
export class CrawlErrorDto {
  @IsString()
  @MaxLength(100)
  code!: string;

  @IsString()
  @MaxLength(4096)
  message!: string;
}

/** `crawl` of a crawl event: the crawl's state, and on `crawl.page` its one document. */
export class CrawlEventBodyDto implements CrawlEventBody {
  @Matches(CRAWL_ID_PATTERN, { message: 'id must be a crawl id (32 hex digits)' })
  id!: string;

  @IsIn(CRAWL_STATUSES)
  status!: CrawlStatus;

  @IsOptional()
  @IsInt()
  @Min(0)
  total?: number;

  @IsOptional()
  @IsInt()
  @Min(0)
  completed?: number;

  @IsOptional()
  @IsInt()
  @Min(0)
  documents?: number;

  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => CrawlErrorDto)
  error?: CrawlErrorDto;

  /** The page's document, as the crawl stored it (checked by the crawl's own stream, not again here). */
  @IsOptional()
  @IsArray()
  @IsObject({ each: true })
  data?: CrawlDocument[];
}

/**
 * A crawl's webhook event on `task.finished.v1` (CrawlWebhookEvent, ADR 0026), as the webhook dispatcher reads it
 * beside the task outcome (parseOutcomeEvent): an event that is not one is dropped, never delivered half-read.
 */
export class CrawlWebhookEventDto implements CrawlWebhookEvent {
  @IsString()
  @MaxLength(200)
  eventId!: string;

  @IsIn(CRAWL_EVENTS)
  event!: CrawlEventName;

  @IsString()
  @MaxLength(4096)
  webhook!: string;

  @IsOptional()
  @IsString()
  @MaxLength(200)
  apiKeyId?: string;

  @IsObject()
  @ValidateNested()
  @Type(() => CrawlEventBodyDto)
  crawl!: CrawlEventBodyDto;

  @IsOptional()
  @IsIn(['firecrawl'])
  form?: 'firecrawl';

  @IsOptional()
  @Validate(IsHeaderMap)
  headers?: Record<string, string>;

  @IsOptional()
  @Validate(IsWebhookMetadata)
  metadata?: Record<string, unknown>;

  @IsOptional()
  @Validate(IsTraceCarrier)
  trace?: TraceCarrier;

  @IsNumber()
  occurredAt!: number;
}

/** `batch` of a URL batch event: the batch's id, and on `batch_scrape.page` its one document or its error. */
export class BatchEventBodyDto implements BatchEventBody {
  @Matches(/^[0-9a-f-]{36}$/, { message: 'id must be a batch id (a UUID)' })
  id!: string;

  @IsOptional()
  @IsInt()
  @Min(0)
  total?: number;

  /** The page's document, mapped from its task's result as a crawl's (checked by the task's processor). */
  @IsOptional()
  @IsArray()
  @IsObject({ each: true })
  data?: CrawlDocument[];

  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => CrawlErrorDto)
  error?: CrawlErrorDto;
}

/**
 * A URL batch's webhook event on `task.finished.v1` (BatchWebhookEvent, ADR 0028), read by the webhook dispatcher as
 * a crawl's: an event that is not one is dropped, never delivered half-read.
 */
export class BatchWebhookEventDto implements BatchWebhookEvent {
  @IsString()
  @MaxLength(200)
  eventId!: string;

  @IsIn(BATCH_SCRAPE_EVENTS)
  event!: BatchScrapeEventName;

  @IsString()
  @MaxLength(4096)
  webhook!: string;

  @IsOptional()
  @IsString()
  @MaxLength(200)
  apiKeyId?: string;

  @IsObject()
  @ValidateNested()
  @Type(() => BatchEventBodyDto)
  batch!: BatchEventBodyDto;

  @IsOptional()
  @IsIn(['firecrawl'])
  form?: 'firecrawl';

  @IsOptional()
  @Validate(IsHeaderMap)
  headers?: Record<string, string>;

  @IsOptional()
  @Validate(IsWebhookMetadata)
  metadata?: Record<string, unknown>;

  @IsOptional()
  @Validate(IsTraceCarrier)
  trace?: TraceCarrier;

  @IsNumber()
  occurredAt!: number;
}
