import { llmTokensPeriodOf, type KeyQueueUsage, type LlmTokensUsage } from '@trawl/contracts';

/**
 * What Firecrawl's token-usage answers carry when the key has no cap (LLM_TOKENS_PER_KEY_PER_MONTH 0): its clients
 * read numbers, so "no cap" is this many tokens of plan and of remaining (ADR 0040).
 */
export const UNCAPPED_TOKENS = 99_999_999;

/** v2's `GET /v2/team/token-usage` (`getTokenUsage()` of firecrawl-js 4.x). */
export function tokenUsageV2(usage: LlmTokensUsage) {
  const capped = usage.remaining !== null;
  return {
    success: true,
    data: {
      remainingTokens: capped ? usage.remaining : UNCAPPED_TOKENS,
      planTokens: capped ? usage.budget : UNCAPPED_TOKENS,
      billingPeriodStart: usage.current.startDate,
      billingPeriodEnd: usage.current.endDate,
    },
  };
}

/** v1's `GET /v1/team/token-usage`: the same numbers under snake_case names. */
export function tokenUsageV1(usage: LlmTokensUsage) {
  const { data } = tokenUsageV2(usage);
  return {
    success: true,
    data: {
      remaining_tokens: data.remainingTokens,
      plan_tokens: data.planTokens,
      billing_period_start: data.billingPeriodStart,
      billing_period_end: data.billingPeriodEnd,
    },
  };
}

/**
 * `GET /v{1,2}/team/token-usage/historical[?byApiKey=true]`: one period per month, oldest first (the current month and
 * the earlier ones with any use, a year back); with `byApiKey`, each names the key by its id (never the key itself).
 */
export function tokenUsageHistorical(usage: LlmTokensUsage, apiKeyId: string | undefined) {
  return {
    success: true,
    periods: [...usage.periods].reverse().map((p) => ({
      startDate: p.startDate,
      endDate: p.endDate,
      ...(apiKeyId !== undefined ? { apiKey: apiKeyId } : {}),
      tokensUsed: p.totalTokens,
    })),
  };
}

/**
 * What Firecrawl's credit answers carry: Trawl meters no credits and refuses no request for want of them (ADR 0041),
 * so a key's credits are "no cap", as its tokens are when uncapped.
 */
export const UNMETERED_CREDITS = UNCAPPED_TOKENS;

/** v2's `GET /v2/team/credit-usage` (`getCreditUsage()`, firecrawl-mcp's `firecrawl_credit_usage`): no cap, this month. */
export function creditUsageV2(now: Date) {
  const period = llmTokensPeriodOf(now);
  return {
    success: true,
    data: {
      remainingCredits: UNMETERED_CREDITS,
      planCredits: UNMETERED_CREDITS,
      billingPeriodStart: period.startDate,
      billingPeriodEnd: period.endDate,
    },
  };
}

/** v1's `GET /v1/team/credit-usage`: the same under snake_case names. */
export function creditUsageV1(now: Date) {
  const { data } = creditUsageV2(now);
  return {
    success: true,
    data: {
      remaining_credits: data.remainingCredits,
      plan_credits: data.planCredits,
      billing_period_start: data.billingPeriodStart,
      billing_period_end: data.billingPeriodEnd,
    },
  };
}

/**
 * `GET /v{1,2}/team/queue-status` (`getQueueStatus()`): the key's outstanding jobs, running and waiting, its last
 * success, and as `maxConcurrency` its concurrency limit, the one number Trawl caps a key's work at (ADR 0041).
 */
export function queueStatusAnswer(usage: KeyQueueUsage) {
  return {
    success: true,
    jobsInQueue: usage.jobs.outstanding,
    activeJobsInQueue: usage.jobs.running,
    waitingJobsInQueue: usage.jobs.waiting,
    maxConcurrency: usage.requests.max,
    mostRecentSuccess: usage.jobs.lastSuccessAt,
  };
}

/** `GET /v2/concurrency-check` (`getConcurrency()`): the key's other requests in flight against its limit. */
export function concurrencyAnswer(requests: KeyQueueUsage['requests']) {
  return { success: true, concurrency: requests.inFlight, maxConcurrency: requests.max };
}
