import { IsInt, IsOptional, IsString, Matches, MaxLength, Min } from 'class-validator';
import {
  CRAWL_ID_PATTERN,
  type CrawlActiveRequest,
  type CrawlCancelRequest,
  type CrawlGetRequest,
} from '../crawl.types.js';

const CRAWL_ID_RULE = 'id must be a crawl id (32 hex digits)';

/**
 * NATS payload of `crawl.cancel.v1` and `crawl.errors.v1`: the crawl's id and the id of the key asking. A crawl is found only by the key
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

/** NATS payload of `crawl.active.v1`: the key whose running crawls are listed (absent: crawls started without one). */
export class CrawlActiveRequestDto implements CrawlActiveRequest {
  @IsOptional()
  @IsString()
  @MaxLength(200)
  apiKeyId?: string;
}
