import { Controller, UseFilters } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { SUBJECTS, WebSearchRequestDto, type WebSearchResult } from '@trawl/contracts';
import { ServesSubject, WireErrorFilter } from '@trawl/messaging';
import { withResultMeta } from '@trawl/parsers';
import { WebSearchService } from './web-search.service.js';

/** Serves SUBJECTS.searchWeb (POST /extract/search) in the extractor-search queue group. */
@Controller()
@UseFilters(WireErrorFilter)
export class WebSearchController {
  constructor(private readonly service: WebSearchService) {}

  @ServesSubject(SUBJECTS.searchWeb)
  async search(@Payload() req: WebSearchRequestDto): Promise<WebSearchResult> {
    return withResultMeta(await this.service.search(req), req.meta);
  }
}
