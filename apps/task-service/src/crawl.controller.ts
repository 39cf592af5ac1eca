import { Controller, UseFilters } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { SUBJECTS, type CrawlStartReply, type CrawlStatusReply, type MapSiteReply } from '@trawl/contracts';
import { CrawlService, SiteMapper } from '@trawl/crawl';
import { WireErrorFilter } from '@trawl/messaging';

/** Crawls (start, status with documents, cancel) and maps over NATS; payloads are validated by the services. */
@Controller()
@UseFilters(WireErrorFilter)
export class CrawlController {
  constructor(
    private readonly crawls: CrawlService,
    private readonly mapper: SiteMapper,
  ) {}

  @MessagePattern(SUBJECTS.crawlStart)
  start(@Payload() payload: unknown): Promise<CrawlStartReply> {
    return this.crawls.start(payload);
  }

  @MessagePattern(SUBJECTS.crawlGet)
  get(@Payload() payload: unknown): Promise<CrawlStatusReply> {
    return this.crawls.get(payload);
  }

  @MessagePattern(SUBJECTS.crawlCancel)
  cancel(@Payload() payload: unknown): Promise<CrawlStatusReply> {
    return this.crawls.cancel(payload);
  }

  @MessagePattern(SUBJECTS.mapSite)
  map(@Payload() payload: unknown): Promise<MapSiteReply> {
    return this.mapper.map(payload);
  }
}
