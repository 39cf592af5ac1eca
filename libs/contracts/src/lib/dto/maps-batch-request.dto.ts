import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  IsBoolean,
} from 'class-validator';
import type { UpstreamEngine } from '../upstream-engine.constants.js';
import { DEFAULT_BATCH_MAPS_LL, DEFAULT_HL, LIMITS, LL_PATTERN } from '../limits.constants.js';
import { IsHttpUrl } from './http-url.validator.js';
import { IsTimeout } from './timeout.validator.js';
import { IsUpstreamEngine } from './upstream-engine.validator.js';

/** POST /extractTask/batch/maps: one parent job per call, one child per query. */
export class MapsBatchRequestDto {
  @ApiProperty({ description: 'Search queries.', type: [String], example: ['coffee in Athens', 'museums in Paris'] })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(LIMITS.maxBatchItems)
  @IsString({ each: true })
  @IsNotEmpty({ each: true })
  @MaxLength(LIMITS.maxQueryLength, { each: true })
  querys!: string[];

  @ApiProperty({ description: 'Receives the final outcome of the job.', example: 'https://example.com/hooks/trawl' })
  @IsHttpUrl()
  webhook!: string;

  @ApiPropertyOptional({ default: DEFAULT_BATCH_MAPS_LL })
  @IsString()
  @Matches(LL_PATTERN, { message: 'll must look like @<lat>,<lng>,<zoom>z, for example @37.98,23.72,14z' })
  ll: string = DEFAULT_BATCH_MAPS_LL;

  @ApiPropertyOptional({ default: DEFAULT_HL })
  @IsString()
  @Matches(/^[a-zA-Z]{2,3}([-_][a-zA-Z0-9]{2,8})?$/, { message: 'hl must be a language code such as en or pt-BR' })
  hl: string = DEFAULT_HL;

  @ApiPropertyOptional({ default: LIMITS.defaultBatchStart })
  @IsInt()
  @Min(0)
  @Max(LIMITS.maxStart)
  start: number = LIMITS.defaultBatchStart;

  @ApiPropertyOptional({ default: LIMITS.defaultBatchNum, maximum: LIMITS.maxMapsNum })
  @IsInt()
  @Min(1)
  @Max(LIMITS.maxMapsNum)
  num: number = LIMITS.defaultBatchNum;

  @IsTimeout('Milliseconds per query.')
  timeout: number = LIMITS.defaultTimeoutMs;

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
}
