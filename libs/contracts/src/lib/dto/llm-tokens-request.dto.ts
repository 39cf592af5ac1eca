import { IsBoolean, IsInt, IsOptional, IsString, Max, MaxLength, Min, MinLength } from 'class-validator';
import type { LlmTokenSpend } from '../llm-tokens.schema.js';

/** Most periods (months) `tokens.usage.v1` answers. */
export const LLM_TOKENS_MAX_MONTHS = 24;

/** Largest count one call may record (far above any model's context; a bound on what a payload can add). */
const MAX_TOKENS_PER_CALL = 100_000_000;

/** NATS payload of `tokens.usage.v1`: the key whose language-model tokens are asked, and how many months back. */
export class LlmTokensUsageRequestDto {
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  apiKeyId!: string;

  /** Periods answered, the current one first (1: only the current one). Default 1. */
  @IsOptional()
  @IsInt({ message: `months must be an integer 1-${LLM_TOKENS_MAX_MONTHS}` })
  @Min(1, { message: `months must be an integer 1-${LLM_TOKENS_MAX_MONTHS}` })
  @Max(LLM_TOKENS_MAX_MONTHS, { message: `months must be an integer 1-${LLM_TOKENS_MAX_MONTHS}` })
  months?: number;
}

/** NATS payload of `tokens.record.v1`: what one chat-completions call of a scrape spent, for the key that asked. */
export class LlmTokensRecordRequestDto implements LlmTokenSpend {
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  apiKeyId!: string;

  @IsInt()
  @Min(0)
  @Max(MAX_TOKENS_PER_CALL)
  promptTokens!: number;

  @IsInt()
  @Min(0)
  @Max(MAX_TOKENS_PER_CALL)
  completionTokens!: number;

  @IsInt()
  @Min(0)
  @Max(MAX_TOKENS_PER_CALL)
  totalTokens!: number;

  @IsBoolean()
  estimated!: boolean;
}
