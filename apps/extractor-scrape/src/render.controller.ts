import { Controller, UseFilters } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { RenderPageRequestDto, SUBJECTS, type RenderPageReply } from '@trawl/contracts';
import { ServesSubject, WireErrorFilter } from '@trawl/messaging';
import { RenderService } from './render.service.js';

/** Serves SUBJECTS.renderPage (pages the upstream extractors need rendered) in the extractor-scrape queue group. */
@Controller()
@UseFilters(WireErrorFilter)
export class RenderController {
  constructor(private readonly service: RenderService) {}

  @ServesSubject(SUBJECTS.renderPage)
  render(@Payload() req: RenderPageRequestDto): Promise<RenderPageReply> {
    return this.service.render(req);
  }
}
