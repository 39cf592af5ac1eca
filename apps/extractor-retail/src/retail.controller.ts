import { Controller, UseFilters } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { ExtractUrlRequestDto, SUBJECTS, type RetailRecord } from '@trawl/contracts';
import { ServesSubject, WireErrorFilter } from '@trawl/messaging';
import { withResultMeta } from '@trawl/parsers';
import { RetailService } from './retail.service.js';

/** Serves SUBJECTS.extractRetail (POST /extract, type `retail`) in the extractor-retail queue group. */
@Controller()
@UseFilters(WireErrorFilter)
export class RetailController {
  constructor(private readonly service: RetailService) {}

  @ServesSubject(SUBJECTS.extractRetail)
  async extract(@Payload() req: ExtractUrlRequestDto): Promise<RetailRecord> {
    return withResultMeta(await this.service.extract(req), req.meta);
  }
}
