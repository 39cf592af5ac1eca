import { Controller, UseFilters } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { parseDto, SUBJECTS, WebSearchRequestDto, type WebSearchResult } from '@trawl/contracts';
import { WireErrorFilter } from '@trawl/messaging';
import { withResultMeta } from '@trawl/parsers';
import { WebSearchService } from './web-search.service.js';

/** Serves SUBJECTS.searchWeb (POST /extract/search) in the extractor-search queue group. */
@Controller()
@UseFilters(WireErrorFilter)
export class WebSearchController {
  constructor(private readonly service: WebSearchService) {}

  @MessagePattern(SUBJECTS.searchWeb)
  async search(@Payload() payload: unknown): Promise<WebSearchResult> {
    const req = parseDto(WebSearchRequestDto, payload);
    return withResultMeta(await this.service.search(req), req.meta);
  }
}
