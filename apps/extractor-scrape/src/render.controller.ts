import { Controller, UseFilters } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { parseDto, RenderPageRequestDto, SUBJECTS, type RenderPageReply } from '@trawl/contracts';
import { WireErrorFilter } from '@trawl/messaging';
import { RenderService } from './render.service.js';

/** Serves SUBJECTS.renderPage (pages the upstream extractors need rendered) in the extractor-scrape queue group. */
@Controller()
@UseFilters(WireErrorFilter)
export class RenderController {
  constructor(private readonly service: RenderService) {}

  @MessagePattern(SUBJECTS.renderPage)
  render(@Payload() payload: unknown): Promise<RenderPageReply> {
    return this.service.render(parseDto(RenderPageRequestDto, payload));
  }
}
