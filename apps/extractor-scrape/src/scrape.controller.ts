import { Controller, UseFilters } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { ScrapePageRequestDto, SUBJECTS, type ScrapeResult } from '@trawl/contracts';
import { currentAbandonSignal, ServesSubject, WireErrorFilter } from '@trawl/messaging';
import { ScrapeService } from './scrape.service.js';

/** Serves SUBJECTS.scrapePage (POST /scrape, and /extract with type `scrape`) in the extractor-scrape queue group. */
@Controller()
@UseFilters(WireErrorFilter)
export class ScrapeController {
  constructor(private readonly service: ScrapeService) {}

  @ServesSubject(SUBJECTS.scrapePage)
  scrape(@Payload() req: ScrapePageRequestDto): Promise<ScrapeResult> {
    // A task's request may be abandoned by task-service when the task is cancelled (ADR 0043).
    return this.service.scrape(req, currentAbandonSignal());
  }
}
