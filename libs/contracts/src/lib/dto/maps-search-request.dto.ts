import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsInt, IsNotEmpty, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import type { UpstreamEngine } from '../upstream-engine.constants.js';
import { DEFAULT_HL, DEFAULT_MAPS_LL, LIMITS, LL_PATTERN } from '../limits.constants.js';
import { IsMaxAge } from './max-age.validator.js';
import { IsStoreInCache } from './store-in-cache.validator.js';
import { IsTimeout } from './timeout.validator.js';
import { IsUpstreamEngine } from './upstream-engine.validator.js';

/** POST /extract/search/maps */
export class MapsSearchRequestDto {
  @ApiProperty({ description: 'Search query.', example: 'coffee in Athens' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(LIMITS.maxQueryLength)
  q!: string;

  @ApiPropertyOptional({
    description: 'Latitude, longitude and zoom: `<lat>,<lng>,<zoom>z`.',
    default: DEFAULT_MAPS_LL,
  })
  @IsString()
  @Matches(LL_PATTERN, { message: 'll must look like <lat>,<lng>,<zoom>z, for example 37.98,23.72,14z' })
  ll: string = DEFAULT_MAPS_LL;

  @ApiPropertyOptional({ description: 'Language.', default: DEFAULT_HL })
  @IsString()
  @Matches(/^[a-zA-Z]{2,3}([-_][a-zA-Z0-9]{2,8})?$/, { message: 'hl must be a language code such as en or pt-BR' })
  hl: string = DEFAULT_HL;

  @ApiPropertyOptional({ description: 'Start index for pagination.', minimum: 0, default: 0 })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(LIMITS.maxStart)
  start?: number;

  @ApiPropertyOptional({
    description: 'Number of results to return.',
    minimum: 1,
    maximum: LIMITS.maxMapsNum,
    default: LIMITS.defaultMapsSearchNum,
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(LIMITS.maxMapsNum)
  num?: number;

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
