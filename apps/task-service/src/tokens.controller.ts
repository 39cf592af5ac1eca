import { Controller, UseFilters } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  SUBJECTS,
  LlmTokensRecordRequestDto,
  type LlmTokensRecordReply,
  type LlmTokensUsage,
  LlmTokensUsageRequestDto,
} from '@trawl/contracts';
import { ServesSubject, WireErrorFilter } from '@trawl/messaging';
import { LlmTokenMeter } from '@trawl/tasks';

/** The language-model tokens of each key (ADR 0040): its usage and budget, and what a call spent. */
@Controller()
@UseFilters(WireErrorFilter)
export class TokensController {
  constructor(private readonly meter: LlmTokenMeter) {}

  @ServesSubject(SUBJECTS.tokensUsage)
  usage(@Payload() req: LlmTokensUsageRequestDto): Promise<LlmTokensUsage> {
    return this.meter.usage(req.apiKeyId, req.months ?? 1);
  }

  @ServesSubject(SUBJECTS.tokensRecord)
  record(@Payload() req: LlmTokensRecordRequestDto): Promise<LlmTokensRecordReply> {
    const { apiKeyId, ...spend } = req;
    return this.meter.record(apiKeyId, spend);
  }
}
