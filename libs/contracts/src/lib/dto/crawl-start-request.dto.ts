import 'reflect-metadata';
import { Type } from 'class-transformer';
import { IsObject, IsOptional, IsString, MaxLength, Validate, ValidateNested } from 'class-validator';
import type { CrawlStartRequest } from '../crawl.types.js';
import type { TraceCarrier } from '../task.types.js';
import { CrawlRequestDto } from './crawl-request.dto.js';
import { IsTraceCarrier } from './trace-carrier.validator.js';

/** NATS payload of `crawl.start.v1`: POST /crawl's body (checked again), the key that starts it, the trace. */
export class CrawlStartRequestDto implements CrawlStartRequest {
  @IsObject()
  @ValidateNested()
  @Type(() => CrawlRequestDto)
  request!: CrawlRequestDto;

  @IsOptional()
  @IsString()
  @MaxLength(200)
  apiKeyId?: string;

  @IsOptional()
  @Validate(IsTraceCarrier)
  trace?: TraceCarrier;
}
