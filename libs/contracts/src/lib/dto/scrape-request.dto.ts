import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
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
} from 'class-validator';
import { LIMITS } from '../limits.constants.js';
import { UPSTREAM_ENGINES } from '../upstream-engine.constants.js';
import { IsHttpUrl } from './http-url.validator.js';
import { HEADER_MAP_DOC, IsHeaderMap } from './url-params.validator.js';
import { IsMaxAge } from './max-age.validator.js';
import { IsStoreInCache } from './store-in-cache.validator.js';

/**
 * `markdown`: the page's main content (or the whole page) as markdown; `html`: the page as rendered (the spec's
 * field, base64 of the percent-encoded markup); `rawHtml`: the document as served; `links`: every link of the page.
 */
export const SCRAPE_FORMATS = ['markdown', 'html', 'rawHtml', 'links'] as const;
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

  @ApiPropertyOptional({
    description:
      'The markdown is the main content of the page (navigation, banners, sidebars, footers, related links and ' +
      'comments left out); false: the whole page. `html` and `rawHtml` are never narrowed. ADR 0023.',
    default: true,
  })
  @IsOptional()
  @IsBoolean()
  onlyMainContent?: boolean;

  @ApiPropertyOptional({
    description: 'CSS selectors: the markdown is made of the matching elements only (before the main content).',
    type: [String],
    example: ['article', '.post-body'],
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(LIMITS.maxTagSelectors)
  @IsString({ each: true })
  @MinLength(1, { each: true })
  @MaxLength(LIMITS.maxTagSelectorChars, { each: true })
  includeTags?: string[];

  @ApiPropertyOptional({
    description: 'CSS selectors: the matching elements are left out of the markdown (before the main content).',
    type: [String],
    example: ['.ad', '#comments'],
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(LIMITS.maxTagSelectors)
  @IsString({ each: true })
  @MinLength(1, { each: true })
  @MaxLength(LIMITS.maxTagSelectorChars, { each: true })
  excludeTags?: string[];
}
