import { Controller, UseFilters } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  SUBJECTS,
  type ActiveCrawlsResult,
  CrawlActiveRequestDto,
  type CrawlErrorsResult,
  CrawlGetRequestDto,
  CrawlLookupRequestDto,
  type CrawlStartReply,
  CrawlStartRequestDto,
  type CrawlStatusReply,
  type MapSiteReply,
  MapSiteRequestDto,
} from '@trawl/contracts';
import { CrawlService, SiteMapper } from '@trawl/crawl';
import { ServesSubject, WireErrorFilter } from '@trawl/messaging';

/**
 * Crawls (start, status with documents, cancel, errors, the key's active ones) and maps over NATS; payloads are checked
 * against their rows.
 */
@Controller()
@UseFilters(WireErrorFilter)
export class CrawlController {
  constructor(
    private readonly crawls: CrawlService,
    private readonly mapper: SiteMapper,
  ) {}

  @ServesSubject(SUBJECTS.crawlStart)
  start(@Payload() req: CrawlStartRequestDto): Promise<CrawlStartReply> {
    return this.crawls.start(req);
  }

  @ServesSubject(SUBJECTS.crawlGet)
  get(@Payload() req: CrawlGetRequestDto): Promise<CrawlStatusReply> {
    return this.crawls.get(req);
  }

  @ServesSubject(SUBJECTS.crawlCancel)
  cancel(@Payload() req: CrawlLookupRequestDto): Promise<CrawlStatusReply> {
    return this.crawls.cancel(req);
  }

  @ServesSubject(SUBJECTS.crawlErrors)
  errors(@Payload() req: CrawlLookupRequestDto): Promise<CrawlErrorsResult> {
    return this.crawls.errors(req);
  }

  @ServesSubject(SUBJECTS.crawlActive)
  active(@Payload() req: CrawlActiveRequestDto): Promise<ActiveCrawlsResult> {
    return this.crawls.active(req);
  }

  @ServesSubject(SUBJECTS.mapSite)
  map(@Payload() req: MapSiteRequestDto): Promise<MapSiteReply> {
    return this.mapper.map(req);
  }
}
