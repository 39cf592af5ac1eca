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
import { DEFAULT_BATCH_GL, DEFAULT_HL, LIMITS } from '../limits.constants.js';
import { IsHttpUrl } from './http-url.validator.js';
import { IsTimeout } from './timeout.validator.js';
import { IsUpstreamEngine } from './upstream-engine.validator.js';

/** POST /extractTask/batch/search: one parent job per call, one child per query. */
export class SearchBatchRequestDto {
  @ApiProperty({ description: 'Search queries.', type: [String], example: ['coffee', 'tea'] })
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

  @ApiPropertyOptional({ default: LIMITS.defaultBatchStart })
  @IsInt()
  @Min(0)
  @Max(LIMITS.maxStart)
  start: number = LIMITS.defaultBatchStart;

  @ApiPropertyOptional({ default: LIMITS.defaultBatchNum, maximum: LIMITS.maxSearchNum })
  @IsInt()
  @Min(1)
  @Max(LIMITS.maxSearchNum)
  num: number = LIMITS.defaultBatchNum;

  @ApiPropertyOptional({ default: DEFAULT_HL })
  @IsString()
  @Matches(/^[a-zA-Z]{2,3}([-_][a-zA-Z0-9]{2,8})?$/, { message: 'hl must be a language code such as en or pt-BR' })
  hl: string = DEFAULT_HL;

  @ApiPropertyOptional({ default: DEFAULT_BATCH_GL })
  @IsString()
  @Matches(/^[a-zA-Z]{2}$/, { message: 'gl must be a two-letter country code such as US' })
  gl: string = DEFAULT_BATCH_GL;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @Matches(/^country[A-Z]{2}(\|country[A-Z]{2})*$/, { message: 'cr must look like countryUS (several joined by |)' })
  cr?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @Matches(/^lang_[a-zA-Z-]{2,7}(\|lang_[a-zA-Z-]{2,7})*$/, {
    message: 'lr must look like lang_en (several joined by |)',
  })
  lr?: string;

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
