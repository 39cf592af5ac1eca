import { Controller, UseFilters } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  SUBJECTS,
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

/** Crawls (start, status with documents, cancel) and maps over NATS; payloads are checked against their rows. */
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

  @ServesSubject(SUBJECTS.mapSite)
  map(@Payload() req: MapSiteRequestDto): Promise<MapSiteReply> {
    return this.mapper.map(req);
  }
}
