import 'reflect-metadata';
import { Type } from 'class-transformer';
import {
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  Min,
  Validate,
  ValidateNested,
} from 'class-validator';
import {
  CRAWL_ID_PATTERN,
  type CrawlCancelRequest,
  type CrawlGetRequest,
  type CrawlStartRequest,
  type MapSiteRequest,
} from '../crawl.types.js';
import type { TraceCarrier } from '../task.types.js';
import { CrawlRequestDto } from './crawl-request.dto.js';
import { MapRequestDto } from './map-request.dto.js';
import { IsTraceCarrier } from './trace-carrier.validator.js';

const CRAWL_ID_RULE = 'id must be a crawl id (32 hex digits)';

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

/**
 * NATS payload of `crawl.cancel.v1`: the crawl's id and the id of the key asking. A crawl is found only by the key
 * that started it; another key is answered as an unknown id is (TASK_NOT_FOUND).
 */
export class CrawlLookupRequestDto implements CrawlCancelRequest {
  @IsString({ message: CRAWL_ID_RULE })
  @Matches(CRAWL_ID_PATTERN, { message: CRAWL_ID_RULE })
  id!: string;

  @IsOptional()
  @IsString()
  @MaxLength(200)
  apiKeyId?: string;
}

/** NATS payload of `crawl.get.v1`: a lookup, and where the page of documents starts (absent: the first). */
export class CrawlGetRequestDto extends CrawlLookupRequestDto implements CrawlGetRequest {
  @IsOptional()
  @IsInt({ message: 'cursor must be a positive integer' })
  @Min(1, { message: 'cursor must be a positive integer' })
  cursor?: number;
}

/** NATS payload of `map.site.v1`: POST /map's body (checked again) and the key asking. */
export class MapSiteRequestDto implements MapSiteRequest {
  @IsObject()
  @ValidateNested()
  @Type(() => MapRequestDto)
  request!: MapRequestDto;

  @IsOptional()
  @IsString()
  @MaxLength(200)
  apiKeyId?: string;
}
