import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsInt, IsNotEmpty, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import type { UpstreamEngine } from '../upstream-engine.constants.js';
import { DEFAULT_HL, LIMITS } from '../limits.constants.js';
import { IsMaxAge } from './max-age.validator.js';
import { IsStoreInCache } from './store-in-cache.validator.js';
import { IsTimeout } from './timeout.validator.js';
import { IsUpstreamEngine } from './upstream-engine.validator.js';

const LANGUAGE = /^[a-zA-Z]{2,3}([-_][a-zA-Z0-9]{2,8})?$/;
const COUNTRY = /^[a-zA-Z]{2}$/;

/** POST /extract/search */
export class WebSearchRequestDto {
  @ApiProperty({ description: 'Search query.', example: 'coffee' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(LIMITS.maxQueryLength)
  q!: string;

  @ApiPropertyOptional({ description: 'Start index for pagination.', default: 0 })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(LIMITS.maxStart)
  start?: number;

  @ApiPropertyOptional({ description: 'Number of results.', default: 10, maximum: LIMITS.maxSearchNum })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(LIMITS.maxSearchNum)
  num?: number;

  @ApiPropertyOptional({ description: 'Host language.', default: DEFAULT_HL })
  @IsOptional()
  @IsString()
  @Matches(LANGUAGE, { message: 'hl must be a language code such as en or pt-BR' })
  hl?: string;

  @ApiPropertyOptional({ description: 'Geolocation: a two-letter country code.', example: 'US' })
  @IsOptional()
  @IsString()
  @Matches(COUNTRY, { message: 'gl must be a two-letter country code such as US' })
  gl?: string;

  @ApiPropertyOptional({ description: 'Country restrict, e.g. countryUS.' })
  @IsOptional()
  @IsString()
  @Matches(/^country[A-Z]{2}(\|country[A-Z]{2})*$/, { message: 'cr must look like countryUS (several joined by |)' })
  cr?: string;

  @ApiPropertyOptional({ description: 'Language restrict, e.g. lang_en.' })
  @IsOptional()
  @IsString()
  @Matches(/^lang_[a-zA-Z-]{2,7}(\|lang_[a-zA-Z-]{2,7})*$/, {
    message: 'lr must look like lang_en (several joined by |)',
  })
  lr?: string;

  @ApiPropertyOptional({
    description: "Time restriction, as Google's `tbs` parameter (e.g. qdr:d for the past day, qdr:w, qdr:m, qdr:y).",
    example: 'qdr:w',
  })
  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z0-9_:,./-]{1,200}$/, { message: 'tbs must be 1-200 letters, digits or _ : , . / - (e.g. qdr:w)' })
  tbs?: string;

  @ApiPropertyOptional({
    description: "Where the search is made from: a canonical place name (sent as Google's `uule`).",
    example: 'Austin,Texas,United States',
  })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(LIMITS.maxLocationLength)
  location?: string;

  @IsTimeout('Milliseconds.')
  timeout: number = LIMITS.defaultTimeoutMs;

  @IsUpstreamEngine()
  engine?: UpstreamEngine;

  @IsMaxAge()
  maxAge?: number;

  @IsStoreInCache()
  storeInCache?: boolean;
  @ApiPropertyOptional({
    description: 'Adds `meta` (parser version, fields left empty) to the result.',
    default: false,
  })
  @IsOptional()
  @IsBoolean()
  meta?: boolean;
}
