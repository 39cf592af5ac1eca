import * as s from './schema/json-schema.builder.js';

/**
 * The language-model tokens an API key spent, per period (ADR 0040). A period is a calendar month in UTC, as
 * Firecrawl's billing period: it starts on the 1st at 00:00:00.000Z and ends the last millisecond of the month.
 */
export const LLM_TOKENS_PERIOD = s.named(
  'LlmTokensPeriod',
  s.object({
    period: s.str('The month, `YYYY-MM` (UTC).'),
    startDate: s.formatted('date-time', 'First instant of the period, ISO 8601 UTC.'),
    endDate: s.formatted('date-time', 'Last instant of the period (its last millisecond), ISO 8601 UTC.'),
    promptTokens: s.int('Tokens of the requests sent to the model.'),
    completionTokens: s.int('Tokens of its answers.'),
    totalTokens: s.int('Tokens counted against the budget: the endpoint’s `total_tokens`, else prompt + completion.'),
    calls: s.int('Chat-completions calls that answered.'),
    estimatedCalls: s.int(
      'Of those, the calls whose endpoint reported no `usage`: their tokens are estimated (4 characters a token).',
    ),
  }),
);
export type LlmTokensPeriod = s.Infer<typeof LLM_TOKENS_PERIOD>;

/** Reply of `tokens.usage.v1` and `data` of GET /usage/tokens. */
export const LLM_TOKENS_USAGE = s.named(
  'LlmTokensUsage',
  s.object({
    budget: s.int('Tokens the key may spend per period (LLM_TOKENS_PER_KEY_PER_MONTH); 0: no cap.'),
    remaining: s.nullable(
      s.int('Tokens left in the current period (0 when spent or overrun); null when there is no cap.'),
    ),
    current: s.ref(LLM_TOKENS_PERIOD),
    periods: s.described(
      s.arr(s.ref(LLM_TOKENS_PERIOD)),
      'The current period and the earlier ones with any use, newest first (at most `months`).',
    ),
  }),
);
export type LlmTokensUsage = s.Infer<typeof LLM_TOKENS_USAGE>;

/** What one chat-completions call spent (the endpoint's `usage`, or an estimate when it gave none). */
export interface LlmTokenSpend {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  /** True when the endpoint reported no usage and the counts are estimated. */
  estimated: boolean;
}

/** Reply of `tokens.record.v1`: the key's total tokens of the current period, this spend included. */
export interface LlmTokensRecordReply {
  totalTokens: number;
}

/** The period (calendar month, UTC) that contains `at`. */
export function llmTokensPeriodOf(at: Date): { period: string; startDate: string; endDate: string } {
  const year = at.getUTCFullYear();
  const month = at.getUTCMonth();
  const start = Date.UTC(year, month, 1);
  const next = Date.UTC(year, month + 1, 1);
  return {
    period: `${year}-${String(month + 1).padStart(2, '0')}`,
    startDate: new Date(start).toISOString(),
    endDate: new Date(next - 1).toISOString(),
  };
}

/** The period `back` months before the one of `at` (0: that one). */
export function llmTokensPeriodBefore(at: Date, back: number): { period: string; startDate: string; endDate: string } {
  return llmTokensPeriodOf(new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() - back, 1)));
}
