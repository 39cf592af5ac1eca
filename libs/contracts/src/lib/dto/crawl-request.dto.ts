import { ApiProperty, ApiPropertyOptional, PickType } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  MinLength,
  Validate,
  ValidateNested,
  ValidatorConstraint,
  type ValidatorConstraintInterface,
} from 'class-validator';
import { CRAWL_PLAN_LIMITS } from '../crawl-plan.schema.js';
import { IsHttpUrl } from './http-url.validator.js';
import { IsScrapeFormats } from './scrape-actions.validator.js';
import { SCREENSHOT_FORMATS, type ScreenshotFormat } from './scrape-browser.types.js';
import { PAGE_SCRAPE_OPTION_FIELDS, type PageScrapeOptionField } from './scrape-options.dto.js';
import { HEADER_MAP_DOC, IsHeaderMap } from './url-params.validator.js';
import { SCRAPE_FORMATS, ScrapeRequestDto, type ScrapeFormat } from './scrape-request.dto.js';

/** Bounds of a crawl and of a map (docs/decisions/0026-crawl-and-map.md). */
export const CRAWL_LIMITS = {
  defaultLimit: 100,
  maxLimit: 100_000,
  defaultMaxDepth: 10,
  maxMaxDepth: 100,
  defaultMaxConcurrency: 2,
  maxMaxConcurrency: 50,
  maxDelayMs: 60_000,
  maxPatterns: 50,
  maxPatternLength: 512,
  defaultMapLimit: 5000,
  maxMapLimit: 100_000,
} as const;

/** Where a crawl's or a map's URLs come from: the sitemaps and the links (`include`), the links only, the sitemaps only. */
export const SITEMAP_MODES = ['include', 'skip', 'only'] as const;
export type SitemapMode = (typeof SITEMAP_MODES)[number];

/** A regular expression that compiles (include/exclude patterns, as Firecrawl's, matched against the URL's path). */
@ValidatorConstraint({ name: 'isRegexList' })
export class IsRegexList implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    if (!Array.isArray(value)) return false;
    return value.every((p) => {
      if (typeof p !== 'string' || p.length === 0 || p.length > CRAWL_LIMITS.maxPatternLength) return false;
      try {
        new RegExp(p);
        return true;
      } catch {
        return false;
      }
    });
  }

  defaultMessage(): string {
    return `each pattern must be a valid regular expression of 1-${CRAWL_LIMITS.maxPatternLength} characters`;
  }
}

/** The page options a crawl's pages take: POST /scrape's but `formats`, which a crawl's pages limit (below). */
const CRAWL_PAGE_OPTION_FIELDS = PAGE_SCRAPE_OPTION_FIELDS.filter(
  (f): f is Exclude<PageScrapeOptionField, 'formats'> => f !== 'formats',
);

/** A format a crawl's pages carry: a content format, or a screenshot (ADR 0039); not the LLM formats. */
export type CrawlFormat = ScrapeFormat | (typeof SCREENSHOT_FORMATS)[number] | ScreenshotFormat;

/**
 * `scrapeOptions` of a crawl: how each page is scraped, as POST /scrape's body without its URL (the fields, their rules
 * and defaults picked from ScrapeRequestDto; ADR 0039), but `maxAge` / `storeInCache` (the gateway's cache) and the
 * formats a language model answers.
 */
export class CrawlScrapeOptionsDto extends PickType(ScrapeRequestDto, [
  ...CRAWL_PAGE_OPTION_FIELDS,
  'timeout',
  'engine',
]) {
  @ApiPropertyOptional({
    description:
      'What each page carries: the content formats, and a screenshot (`screenshot`, `screenshot@fullPage` or the ' +
      'object form; browser engine; each at most SCRAPE_SCREENSHOT_MAX_BYTES, ADR 0039). Not `json` or `summary`.',
    type: 'array',
    items: {
      oneOf: [
        { type: 'string', enum: [...SCRAPE_FORMATS, ...SCREENSHOT_FORMATS] },
        {
          type: 'object',
          required: ['type'],
          additionalProperties: false,
          properties: {
            type: { type: 'string', enum: ['screenshot'] },
            fullPage: { type: 'boolean' },
            quality: { type: 'integer', minimum: 1, maximum: 100 },
            viewport: {
              type: 'object',
              required: ['width', 'height'],
              properties: { width: { type: 'integer' }, height: { type: 'integer' } },
            },
          },
        },
      ],
    },
    default: ['markdown'],
  })
  @Validate(IsScrapeFormats, [SCRAPE_FORMATS, { llm: false }])
  formats: CrawlFormat[] = ['markdown'];
}

/** The events a crawl's webhook may be limited to (Firecrawl's `webhook.events`). */
export const CRAWL_WEBHOOK_EVENT_KINDS = ['started', 'page', 'completed', 'failed'] as const;
export type CrawlWebhookEventKind = (typeof CRAWL_WEBHOOK_EVENT_KINDS)[number];

/** The bodies a crawl's webhook can receive: Trawl's (the crawl's state) or Firecrawl's object form (ADR 0028). */
export const CRAWL_WEBHOOK_FORMS = ['trawl', 'firecrawl'] as const;
export type CrawlWebhookForm = (typeof CRAWL_WEBHOOK_FORMS)[number];

/** Most bytes of a crawl webhook's `metadata` (JSON), echoed in every delivery. */
export const MAX_WEBHOOK_METADATA_BYTES = 4096;

/** `metadata` of a crawl webhook: a JSON object of at most MAX_WEBHOOK_METADATA_BYTES. */
@ValidatorConstraint({ name: 'isWebhookMetadata' })
export class IsWebhookMetadata implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
    return Buffer.byteLength(JSON.stringify(value)) <= MAX_WEBHOOK_METADATA_BYTES;
  }

  defaultMessage(): string {
    return `metadata must be a JSON object of at most ${MAX_WEBHOOK_METADATA_BYTES} bytes`;
  }
}

/** `webhookOptions` of a crawl: the body's form, headers sent with each delivery, metadata echoed, events wanted. */
export class CrawlWebhookOptionsDto {
  @ApiPropertyOptional({ enum: CRAWL_WEBHOOK_FORMS, default: 'trawl' })
  @IsOptional()
  @IsIn(CRAWL_WEBHOOK_FORMS, { message: `format must be one of: ${CRAWL_WEBHOOK_FORMS.join(', ')}` })
  format?: CrawlWebhookForm;

  @ApiPropertyOptional({ ...HEADER_MAP_DOC, description: 'Sent with each delivery (the signature headers win).' })
  @IsOptional()
  @Validate(IsHeaderMap)
  headers?: Record<string, string>;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'Echoed in each delivery.' })
  @IsOptional()
  @Validate(IsWebhookMetadata)
  metadata?: Record<string, unknown>;

  @ApiPropertyOptional({ enum: CRAWL_WEBHOOK_EVENT_KINDS, isArray: true, description: 'Only these events (all).' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(CRAWL_WEBHOOK_EVENT_KINDS.length)
  @IsIn(CRAWL_WEBHOOK_EVENT_KINDS, { each: true })
  events?: CrawlWebhookEventKind[];
}

/** POST /crawl: every page of a site within a scope (field names as Firecrawl's crawl). */
export class CrawlRequestDto {
  @ApiProperty({
    description: 'Where the crawl starts; its host is the crawl’s scope.',
    example: 'https://example.com/',
  })
  @IsHttpUrl()
  url!: string;

  @ApiPropertyOptional({
    description:
      'What to crawl, in words (ADR 0042): a language model (extractor-scrape’s LLM_BASE_URL) shown the site’s map ' +
      'chooses the scope and size options this body leaves out; the options given here win. The answer’s `plan` ' +
      'says what it chose. Refused with 400 when no model is configured.',
    maxLength: CRAWL_PLAN_LIMITS.maxPromptChars,
  })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(CRAWL_PLAN_LIMITS.maxPromptChars)
  prompt?: string;

  @ApiPropertyOptional({ description: 'Most pages crawled.', default: CRAWL_LIMITS.defaultLimit })
  @IsInt()
  @Min(1)
  @Max(CRAWL_LIMITS.maxLimit)
  limit: number = CRAWL_LIMITS.defaultLimit;

  @ApiPropertyOptional({
    description: 'Most link hops from the start URL (sitemap URLs are at depth 0).',
    default: CRAWL_LIMITS.defaultMaxDepth,
  })
  @IsInt()
  @Min(0)
  @Max(CRAWL_LIMITS.maxMaxDepth)
  maxDepth: number = CRAWL_LIMITS.defaultMaxDepth;

  @ApiPropertyOptional({ type: [String], description: 'Path regexes a URL must match one of (empty: all).' })
  @IsArray()
  @ArrayMaxSize(CRAWL_LIMITS.maxPatterns)
  @Validate(IsRegexList)
  includePaths: string[] = [];

  @ApiPropertyOptional({ type: [String], description: 'Path regexes that exclude a URL.' })
  @IsArray()
  @ArrayMaxSize(CRAWL_LIMITS.maxPatterns)
  @Validate(IsRegexList)
  excludePaths: string[] = [];

  @ApiPropertyOptional({ enum: SITEMAP_MODES, default: 'include' })
  @IsIn(SITEMAP_MODES, { message: `sitemap must be one of: ${SITEMAP_MODES.join(', ')}` })
  sitemap: SitemapMode = 'include';

  @ApiPropertyOptional({ default: false })
  @IsBoolean()
  allowSubdomains: boolean = false;

  @ApiPropertyOptional({ default: false })
  @IsBoolean()
  allowExternalLinks: boolean = false;

  @ApiPropertyOptional({ description: 'URLs differing only in their query are one page.', default: false })
  @IsBoolean()
  ignoreQueryParameters: boolean = false;

  @ApiPropertyOptional({
    description: 'Most requests in flight to one host, across the fleet.',
    default: CRAWL_LIMITS.defaultMaxConcurrency,
  })
  @IsInt()
  @Min(1)
  @Max(CRAWL_LIMITS.maxMaxConcurrency)
  maxConcurrency: number = CRAWL_LIMITS.defaultMaxConcurrency;

  @ApiPropertyOptional({ description: 'Least milliseconds between two requests to one host.', default: 0 })
  @IsInt()
  @Min(0)
  @Max(CRAWL_LIMITS.maxDelayMs)
  delay: number = 0;

  @ApiPropertyOptional({ type: () => CrawlScrapeOptionsDto })
  @ValidateNested()
  @Type(() => CrawlScrapeOptionsDto)
  scrapeOptions: CrawlScrapeOptionsDto = new CrawlScrapeOptionsDto();

  @ApiPropertyOptional({ description: 'Receives crawl.started, crawl.page, crawl.completed / crawl.failed.' })
  @IsOptional()
  @IsHttpUrl()
  webhook?: string;

  @ApiPropertyOptional({ type: () => CrawlWebhookOptionsDto, description: 'How `webhook` is called (ADR 0028).' })
  @IsOptional()
  @ValidateNested()
  @Type(() => CrawlWebhookOptionsDto)
  webhookOptions?: CrawlWebhookOptionsDto;
}
