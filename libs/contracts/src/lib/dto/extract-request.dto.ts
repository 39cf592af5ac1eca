import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsOptional, Validate } from 'class-validator';
import type { UpstreamEngine } from '../upstream-engine.constants.js';
import { EXTRACT_TYPES, type ExtractType } from '../extract-type.constants.js';
import { LIMITS } from '../limits.constants.js';
import { IsHttpUrl } from './http-url.validator.js';
import { IsScrapeOptions, ScrapeOptionsDto, type ScrapeOptions } from './scrape-options.dto.js';
import { IsUrlParams, URL_PARAMS_DOC, type UrlParams } from './url-params.validator.js';
import { IsMaxAge } from './max-age.validator.js';
import { IsStoreInCache } from './store-in-cache.validator.js';
import { IsTimeout } from './timeout.validator.js';
import { IsUpstreamEngine } from './upstream-engine.validator.js';

/** POST /extract */
export class ExtractRequestDto {
  @ApiProperty({ description: 'URL to extract.', example: 'https://www.google.com/maps/place/?q=place_id:ChIJ...' })
  @IsHttpUrl()
  url!: string;

  @ApiProperty({ enum: EXTRACT_TYPES })
  @IsIn(EXTRACT_TYPES, { message: `type must be one of: ${EXTRACT_TYPES.join(', ')}` })
  type!: ExtractType;

  @IsTimeout('Milliseconds.')
  timeout: number = LIMITS.defaultTimeoutMs;

  @ApiPropertyOptional({
    description: 'Adds `meta` (parser version, fields left empty) to the result.',
    default: false,
  })
  @IsOptional()
  @IsBoolean()
  meta?: boolean;

  @ApiPropertyOptional({
    ...URL_PARAMS_DOC,
    description: `Parameters appended to the URL, e.g. hl, gl. ${URL_PARAMS_DOC.description}`,
  })
  @IsOptional()
  @Validate(IsUrlParams)
  params?: UrlParams;

  @IsUpstreamEngine()
  engine?: UpstreamEngine;

  @IsMaxAge()
  maxAge?: number;

  @IsStoreInCache()
  storeInCache?: boolean;

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
