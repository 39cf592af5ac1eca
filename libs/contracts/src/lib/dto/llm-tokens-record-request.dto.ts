import { IsBoolean, IsInt, IsString, Max, MaxLength, Min, MinLength } from 'class-validator';
import type { LlmTokenSpend } from '../llm-tokens.schema.js';

/** Largest count one call may record (far above any model's context; a bound on what a payload can add). */
const MAX_TOKENS_PER_CALL = 100_000_000;

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
