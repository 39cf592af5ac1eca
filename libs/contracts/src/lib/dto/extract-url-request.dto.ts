import { IsBoolean, IsInt, IsOptional, Max, Min, Validate } from 'class-validator';
import { LIMITS } from '../limits.constants.js';
import type { ExtractUrlRequest } from '../rpc-contract.js';
import { IsHttpUrl } from './http-url.js';
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
}
