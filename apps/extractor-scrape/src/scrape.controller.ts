import { Controller, UseFilters } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { parseDto, ScrapePageRequestDto, SUBJECTS, type ScrapeResult } from '@trawl/contracts';
import { WireErrorFilter } from '@trawl/messaging';
import { ScrapeService } from './scrape.service.js';

/** Serves SUBJECTS.scrapePage (POST /scrape, and /extract with type `scrape`) in the extractor-scrape queue group. */
@Controller()
@UseFilters(WireErrorFilter)
export class ScrapeController {
  constructor(private readonly service: ScrapeService) {}

  @MessagePattern(SUBJECTS.scrapePage)
  scrape(@Payload() payload: unknown): Promise<ScrapeResult> {
    return this.service.scrape(parseDto(ScrapePageRequestDto, payload));
  }
}
