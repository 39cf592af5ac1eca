import 'reflect-metadata';
import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsIn, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { CRAWL_PLAN_LIMITS } from '../crawl-plan.schema.js';
import { LIMITS } from '../limits.constants.js';
import { IsHttpUrl } from './http-url.validator.js';

/** POST /crawl/plan (Firecrawl's params preview): a crawl's options drawn from a prompt, not started. */
export class CrawlPlanBodyDto {
  @ApiProperty({ description: 'Where the crawl would start.', example: 'https://example.com/' })
  @IsHttpUrl()
  url!: string;

  @ApiProperty({
    description: 'What to crawl, in words: the language model turns it into the crawl’s scope and size.',
    example: 'only the blog posts of 2025, at most 50',
    maxLength: CRAWL_PLAN_LIMITS.maxPromptChars,
  })
  @IsString()
  @MinLength(1)
  @MaxLength(CRAWL_PLAN_LIMITS.maxPromptChars)
  prompt!: string;
}

/**
 * What the model is told the crawl's scope is whatever it answers: `host` (the native crawl: every page of the start
 * URL's host) or `path` (Firecrawl's default: only paths under the start URL's).
 */
export const CRAWL_PLAN_SCOPES = ['host', 'path'] as const;
export type CrawlPlanScope = (typeof CRAWL_PLAN_SCOPES)[number];

/** NATS payload of `crawl.plan.v1`: the prompt, the site's URLs the gateway mapped, the scope, the key that pays. */
export class CrawlPlanRequestDto extends CrawlPlanBodyDto {
  @IsArray()
  @ArrayMaxSize(CRAWL_PLAN_LIMITS.siteUrls)
  @IsString({ each: true })
  @MaxLength(LIMITS.maxUrlLength, { each: true })
  siteUrls!: string[];

  @IsIn(CRAWL_PLAN_SCOPES)
  scope!: CrawlPlanScope;

  /** The key whose language-model tokens the plan spends (ADR 0040); absent: none authenticated the request. */
  @IsOptional()
  @IsString()
  @MaxLength(200)
  apiKeyId?: string;
}

/**
 * NATS payload of `crawl.plan.ready.v1`: asked before the gateway maps the site for a plan, so that a plan the
 * planner would refuse (no model configured, the key's tokens spent) costs no map of the site.
 */
export class CrawlPlanReadyRequestDto {
  /** The key whose language-model tokens the plan would spend (ADR 0040); absent: none authenticated the request. */
  @IsOptional()
  @IsString()
  @MaxLength(200)
  apiKeyId?: string;
}
