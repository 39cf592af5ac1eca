import { Controller, UseFilters } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { ExtractUrlRequestDto, parseDto, SUBJECTS, type RetailRecord } from '@trawl/contracts';
import { WireErrorFilter } from '@trawl/messaging';
import { withResultMeta } from '@trawl/parsers';
import { RetailService } from './retail.service.js';

/** Serves SUBJECTS.extractRetail (POST /extract, type `retail`) in the extractor-retail queue group. */
@Controller()
@UseFilters(WireErrorFilter)
export class RetailController {
  constructor(private readonly service: RetailService) {}

  @MessagePattern(SUBJECTS.extractRetail)
  async extract(@Payload() payload: unknown): Promise<RetailRecord> {
    const req = parseDto(ExtractUrlRequestDto, payload);
    return withResultMeta(await this.service.extract(req), req.meta);
  }
}
