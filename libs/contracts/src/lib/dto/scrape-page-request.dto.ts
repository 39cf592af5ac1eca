import { IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { ScrapeRequestDto } from './scrape-request.dto.js';

/**
 * `scrape.page.v1`: the scrape request as the platform sends it to extractor-scrape. The public body
 * (ScrapeRequestDto) plus the tenant the gateway or task-service authenticated, which no HTTP body can set: the
 * gateway's validation refuses unknown fields, and the producers set `tenant` from the API key, never from the body
 * (docs/decisions/0017-tab-reset-per-tenant.md).
 */
export class ScrapePageRequestDto extends ScrapeRequestDto {
  /** Opaque id of who the scrape is for (the API key id). Absent: unknown, and the browser tab is emptied for it. */
  @IsOptional()
  @IsString()
  @MaxLength(128)
  @Matches(/^[\x21-\x7e]+$/, { message: 'tenant must be printable ASCII without spaces' })
  tenant?: string;
}

/** The scrape request for the platform's `tenant` (undefined: unknown). Any `tenant` the body carried is replaced. */
export function scrapePageRequest(body: ScrapeRequestDto, tenant: string | undefined): ScrapePageRequestDto {
  const request: ScrapePageRequestDto = { ...body };
  delete request.tenant;
  if (tenant !== undefined) request.tenant = tenant;
  return request;
}
