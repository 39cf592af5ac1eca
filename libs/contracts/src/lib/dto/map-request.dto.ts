import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { LIMITS } from '../limits.constants.js';
import { CRAWL_LIMITS, SITEMAP_MODES, type SitemapMode } from './crawl-request.dto.js';
import { IsHttpUrl } from './http-url.validator.js';

/** POST /map: a site's URLs from its sitemaps and its pages' links, without scraping every page. */
export class MapRequestDto {
  @ApiProperty({ example: 'https://example.com/' })
  @IsHttpUrl()
  url!: string;

  @ApiPropertyOptional({ default: CRAWL_LIMITS.defaultMapLimit })
  @IsInt()
  @Min(1)
  @Max(CRAWL_LIMITS.maxMapLimit)
  limit: number = CRAWL_LIMITS.defaultMapLimit;

  @ApiPropertyOptional({ enum: SITEMAP_MODES, default: 'include' })
  @IsIn(SITEMAP_MODES, { message: `sitemap must be one of: ${SITEMAP_MODES.join(', ')}` })
  sitemap: SitemapMode = 'include';

  @ApiPropertyOptional({ default: false })
  @IsBoolean()
  includeSubdomains: boolean = false;

  @ApiPropertyOptional({ description: 'Only URLs (or titles) containing these words, best first.' })
  @IsOptional()
  @IsString()
  @MaxLength(LIMITS.maxQueryLength)
  search?: string;

  @ApiPropertyOptional({ description: 'Milliseconds for the whole map.', default: LIMITS.defaultTimeoutMs })
  @IsInt()
  @Min(LIMITS.minTimeoutMs)
  @Max(LIMITS.maxTimeoutMs)
  timeout: number = LIMITS.defaultTimeoutMs;
}
