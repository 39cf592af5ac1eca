import { Controller, UseFilters } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { ScrapePageRequestDto, SUBJECTS, type ScrapeResult } from '@trawl/contracts';
import { ServesSubject, WireErrorFilter } from '@trawl/messaging';
import { ScrapeService } from './scrape.service.js';

/** Serves SUBJECTS.scrapePage (POST /scrape, and /extract with type `scrape`) in the extractor-scrape queue group. */
@Controller()
@UseFilters(WireErrorFilter)
export class ScrapeController {
  constructor(private readonly service: ScrapeService) {}

  @ServesSubject(SUBJECTS.scrapePage)
  scrape(@Payload() req: ScrapePageRequestDto): Promise<ScrapeResult> {
    return this.service.scrape(req);
  }
}
