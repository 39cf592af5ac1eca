import { IsInt, IsOptional, IsString, Max, MaxLength, Min, MinLength } from 'class-validator';

/** Most periods (months) `tokens.usage.v1` answers. */
export const LLM_TOKENS_MAX_MONTHS = 24;

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
