import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsOptional,
  IsUUID,
  Validate,
  ValidateNested,
  IsBoolean,
} from 'class-validator';
import type { UpstreamEngine } from '../upstream-engine.constants.js';
import { EXTRACT_TYPES, type ExtractType } from '../extract-type.constants.js';
import { LIMITS } from '../limits.constants.js';
import { IsHttpUrl } from './http-url.validator.js';
import { IsScrapeOptions, ScrapeOptionsDto, type ScrapeOptions } from './scrape-options.dto.js';
import { IsUrlParams, URL_PARAMS_DOC, type UrlParams } from './url-params.validator.js';
import { IsTimeout } from './timeout.validator.js';
import { IsUpstreamEngine } from './upstream-engine.validator.js';
import { CrawlWebhookOptionsDto } from './crawl-request.dto.js';

/**
 * `webhookOptions` of a URL batch (ADR 0028): a crawl's webhook options plus the id the batch's events carry (the
 * Firecrawl batch's, made by the gateway before the submission). With them the batch's webhook gets
 * `batch_scrape.started`, one `batch_scrape.page` per URL and `batch_scrape.completed` instead of per-task events.
 */
export class UrlBatchWebhookOptionsDto extends CrawlWebhookOptionsDto {
  @ApiProperty({ description: 'The id the batch events carry (a UUID).', format: 'uuid' })
  @IsUUID()
  batchId!: string;
}

/** POST /extractTask/batch: one job per URL. */
export class UrlBatchRequestDto {
  @ApiProperty({ description: 'URLs to extract.', type: [String], example: ['https://example.com/'] })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(LIMITS.maxBatchItems)
  @IsHttpUrl({ each: true })
  urls!: string[];

  // Required on POST /extractTask/batch (the spec's; TasksController holds it). A batch submitted through a peer's API
  // without one (Firecrawl's, ADR 0024) is followed by lookup only: its outcomes are delivered nowhere.
  @ApiProperty({ description: 'Receives the final success or failure of each task.' })
  @IsOptional()
  @IsHttpUrl()
  webhook?: string;

  @ApiPropertyOptional({
    type: () => UrlBatchWebhookOptionsDto,
    description: 'How `webhook` is called: batch events (batch_scrape.*) instead of per-task ones (ADR 0028).',
  })
  @IsOptional()
  @ValidateNested()
  @Type(() => UrlBatchWebhookOptionsDto)
  webhookOptions?: UrlBatchWebhookOptionsDto;

  @ApiProperty({ enum: EXTRACT_TYPES, description: 'Website type.' })
  @IsIn(EXTRACT_TYPES, { message: `type must be one of: ${EXTRACT_TYPES.join(', ')}` })
  type!: ExtractType;

  @IsTimeout()
  timeout: number = LIMITS.defaultTimeoutMs;

  @ApiPropertyOptional({
    ...URL_PARAMS_DOC,
    description: `Parameters appended to every URL. ${URL_PARAMS_DOC.description}`,
  })
  @IsOptional()
  @Validate(IsUrlParams)
  params?: UrlParams;

  @IsUpstreamEngine()
  engine?: UpstreamEngine;

  @ApiPropertyOptional({
    description:
      'Each result carries `meta` (parser, parser version, fields left empty; docs/result-meta.md). Not for type `scrape`.',
    default: false,
  })
  @IsOptional()
  @IsBoolean()
  meta?: boolean;

  @ApiPropertyOptional({
    type: () => ScrapeOptionsDto,
    description:
      "Type `scrape` only: POST /scrape's per-page options, with its rules and defaults (ADR 0039): the formats " +
      '(instead of the configured markdown and html), `headers`, `headersEverywhere`, `waitFor`, ' +
      '`onlyMainContent`, `includeTags`, `excludeTags`, `blockAds`, and the browser options `actions`, `location`, ' +
      '`mobile` (ADR 0019).',
  })
  @IsOptional()
  @Validate(IsScrapeOptions)
  scrapeOptions?: ScrapeOptions;
}
