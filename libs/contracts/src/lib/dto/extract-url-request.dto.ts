import { IsBoolean, IsInt, IsOptional, Max, Min, Validate, IsIn } from 'class-validator';
import { UPSTREAM_ENGINES, type UpstreamEngine } from '../upstream-engine.constants.js';
import { LIMITS } from '../limits.constants.js';
import type { ExtractRequestDto } from './extract-request.dto.js';
import { IsHttpUrl } from './http-url.validator.js';
import { IsUrlParams, type UrlParams } from './url-params.validator.js';

/** One URL to extract, as sent to an extractor (params already appended). */
export interface ExtractUrlRequest {
  url: string;
  timeout: number;
  /** Optional hints from `params` (hl, gl) the extractor may use. */
  params?: ExtractRequestDto['params'];
  /** How the extractor gets the page (extension of the spec); absent: the service's configuration. */
  engine?: UpstreamEngine;
  /** Add the `meta` block to the record. */
  meta?: boolean;
}

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
