import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsInt, IsOptional, Max, Min, Validate } from 'class-validator';
import { LIMITS } from '../limits.constants.js';
import { UPSTREAM_ENGINES } from '../upstream-engine.constants.js';
import { IsHttpUrl } from './http-url.validator.js';
import { HEADER_MAP_DOC, IsHeaderMap } from './url-params.validator.js';
import { IsMaxAge } from './max-age.validator.js';
import { IsStoreInCache } from './store-in-cache.validator.js';

export const SCRAPE_FORMATS = ['markdown', 'html'] as const;
export type ScrapeFormat = (typeof SCRAPE_FORMATS)[number];

/**
 * `browser`: Chromium renders the page. `http`: a plain fetch, no scripts. `auto`: fetch first, browser if needed.
 * The same engines as the upstream extractors' (one list: UPSTREAM_ENGINES).
 */
export const SCRAPE_ENGINES = UPSTREAM_ENGINES;
export type ScrapeEngine = (typeof SCRAPE_ENGINES)[number];

/** POST /scrape. Field names follow Firecrawl's scrape API (see docs/decisions/0002-scrape-request.md). */
export class ScrapeRequestDto {
  @ApiProperty({ description: 'URL to scrape.', example: 'https://example.com/' })
  @IsHttpUrl()
  url!: string;

  @ApiPropertyOptional({ enum: SCRAPE_FORMATS, isArray: true, default: ['markdown'] })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(SCRAPE_FORMATS.length)
  @IsIn(SCRAPE_FORMATS, { each: true, message: `formats must contain only: ${SCRAPE_FORMATS.join(', ')}` })
  formats: ScrapeFormat[] = ['markdown'];

  @ApiPropertyOptional({
    ...HEADER_MAP_DOC,
    description: `Headers sent with the page request (cookies, user agent). ${HEADER_MAP_DOC.description}`,
  })
  @IsOptional()
  @Validate(IsHeaderMap)
  headers?: Record<string, string>;

  @ApiPropertyOptional({ description: 'Milliseconds for the whole scrape.', default: LIMITS.defaultTimeoutMs })
  @IsInt()
  @Min(LIMITS.minTimeoutMs)
  @Max(LIMITS.maxTimeoutMs)
  timeout: number = LIMITS.defaultTimeoutMs;

  @ApiPropertyOptional({ description: 'Milliseconds to wait after load before reading the page.', default: 0 })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(LIMITS.maxWaitForMs)
  waitFor?: number;

  @ApiPropertyOptional({ enum: SCRAPE_ENGINES, description: 'Defaults to the service configuration (browser).' })
  @IsOptional()
  @IsIn(SCRAPE_ENGINES, { message: `engine must be one of: ${SCRAPE_ENGINES.join(', ')}` })
  engine?: ScrapeEngine;

  @IsMaxAge()
  maxAge?: number;

  @IsStoreInCache()
  storeInCache?: boolean;
}
