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
import { LlmTokenStore } from '@trawl/tasks';

/** The language-model tokens of each key (ADR 0040): its usage and budget, and what a call spent. */
@Controller()
@UseFilters(WireErrorFilter)
export class TokensController {
  constructor(private readonly tokens: LlmTokenStore) {}

  @ServesSubject(SUBJECTS.tokensUsage)
  usage(@Payload() req: LlmTokensUsageRequestDto): Promise<LlmTokensUsage> {
    return this.tokens.usage(req.apiKeyId, req.months ?? 1);
  }

  @ServesSubject(SUBJECTS.tokensRecord)
  record(@Payload() req: LlmTokensRecordRequestDto): Promise<LlmTokensRecordReply> {
    const { apiKeyId, ...spend } = req;
    return this.tokens.record(apiKeyId, spend);
  }
}
