import { Controller, UseFilters } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { parseDto, SUBJECTS, WebSearchRequestDto, type WebSearchResult } from '@trawl/contracts';
import { WireErrorFilter } from '@trawl/messaging';
import { WebSearchService } from './web-search.service.js';

/** Serves SUBJECTS.searchWeb (POST /extract/search) in the extractor-search queue group. */
@Controller()
@UseFilters(WireErrorFilter)
export class WebSearchController {
  constructor(private readonly service: WebSearchService) {}

  @MessagePattern(SUBJECTS.searchWeb)
  search(@Payload() payload: unknown): Promise<WebSearchResult> {
    return this.service.search(parseDto(WebSearchRequestDto, payload));
  }
}
