import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsOptional, Validate } from 'class-validator';
import type { UpstreamEngine } from '../upstream-engine.constants.js';
import { EXTRACT_TYPES, type ExtractType } from '../extract-type.constants.js';
import { LIMITS } from '../limits.constants.js';
import { IsHttpUrl } from './http-url.validator.js';
import { IsScrapeOptions } from './scrape-actions.validator.js';
import type { ScrapeOptions } from './scrape-browser.types.js';
import { SCRAPE_FORMATS } from './scrape-request.dto.js';
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
    description:
      'Type `scrape` only: the formats (instead of the configured markdown and html) and the browser options, as on ' +
      '`/scrape` (ADR 0019): `formats`, `actions`, `location`, `mobile`, `blockAds` (ADR 0030).',
    type: 'object',
    properties: {
      formats: { type: 'array', items: { oneOf: [{ type: 'string' }, { type: 'object' }] } },
      actions: { type: 'array', items: { type: 'object' } },
      location: {
        type: 'object',
        properties: { country: { type: 'string' }, languages: { type: 'array', items: { type: 'string' } } },
      },
      mobile: { type: 'boolean' },
      blockAds: { type: 'boolean', default: true },
    },
  })
  @IsOptional()
  @Validate(IsScrapeOptions, [SCRAPE_FORMATS])
  scrapeOptions?: ScrapeOptions;
}
