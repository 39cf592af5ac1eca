import { IsBoolean, IsInt, IsOptional, Max, Min, Validate, IsIn } from 'class-validator';
import { UPSTREAM_ENGINES, type UpstreamEngine } from '../upstream-engine.constants.js';
import { LIMITS } from '../limits.constants.js';
import type { ExtractUrlRequest } from '../rpc-contract.types.js';
import { IsHttpUrl } from './http-url.validator.js';
import { IsUrlParams, type UrlParams } from './url-params.validator.js';

/** One URL to extract as an extractor receives it over NATS (ExtractUrlRequest), validated at that boundary. */
export class ExtractUrlRequestDto implements ExtractUrlRequest {
  @IsHttpUrl()
  url!: string;

  @IsInt()
  @Min(LIMITS.minTimeoutMs)
  @Max(LIMITS.maxTimeoutMs)
  timeout: number = LIMITS.defaultTimeoutMs;

  /** Adds `meta` (parser version, fields left empty) to the result. */
  @IsOptional()
  @IsBoolean()
  meta?: boolean;

  @IsOptional()
  @Validate(IsUrlParams)
  params?: UrlParams;

  @IsOptional()
  @IsIn(UPSTREAM_ENGINES, { message: `engine must be one of: ${UPSTREAM_ENGINES.join(', ')}` })
  engine?: UpstreamEngine;
}
