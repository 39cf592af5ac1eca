import { Controller, UseFilters } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { ExtractUrlRequestDto, parseDto, SUBJECTS, type RetailRecord } from '@trawl/contracts';
import { WireErrorFilter } from '@trawl/messaging';
import { RetailService } from './retail.service.js';

/** Serves SUBJECTS.extractRetail (POST /extract, type `retail`) in the extractor-retail queue group. */
@Controller()
@UseFilters(WireErrorFilter)
export class RetailController {
  constructor(private readonly service: RetailService) {}

  @MessagePattern(SUBJECTS.extractRetail)
  extract(@Payload() payload: unknown): Promise<RetailRecord> {
    return this.service.extract(parseDto(ExtractUrlRequestDto, payload));
  }
}
