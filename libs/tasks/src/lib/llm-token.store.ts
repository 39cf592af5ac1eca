import {
  llmTokensPeriodBefore,
  llmTokensPeriodOf,
  type LlmTokenSpend,
  type LlmTokensPeriod,
  type LlmTokensUsage,
} from '@trawl/contracts';
import type { RedisClient } from '@trawl/redis';

/** The prefix of the token counters (the deploy's Redis ACL grants `~trawl:tokens:*` to task-service). */
export const LLM_TOKENS_KEY_PREFIX = 'trawl:tokens:';

/** A key's counters of one month: a hash `trawl:tokens:<key id>:<YYYY-MM>`. */
export function llmTokensKey(apiKeyId: string, period: string): string {
  return `${LLM_TOKENS_KEY_PREFIX}${apiKeyId}:${period}`;
}

/** How long a month's counters are kept after their last change: 25 months, the history `tokens.usage.v1` reads. */
export const LLM_TOKENS_RETENTION_SEC = 25 * 31 * 24 * 60 * 60;

export interface LlmTokenStoreOptions {
  /** Tokens a key may spend per calendar month (UTC); 0: no cap. */
  budgetPerKeyPerMonth: number;
  /** The clock (tests); Date.now by default. */
  now?: () => number;
}

/**
 * The language-model tokens each API key spent, per calendar month in UTC (ADR 0040), in the task Redis: one hash per
 * key and month, its fields added to atomically (HINCRBY), so replicas and concurrent scrapes count exactly. The
 * budget is checked before a call (`usage`: `remaining` > 0) and the spend recorded after it, so a key may overrun its
 * budget by the calls that were admitted while it still had tokens left (at most one answer each).
 */
export class LlmTokenStore {
  private readonly now: () => number;

  constructor(
    private readonly redis: RedisClient,
    private readonly options: LlmTokenStoreOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  get budget(): number {
    return this.options.budgetPerKeyPerMonth;
  }

  /** Adds one call's spend to the key's current month; answers the month's total. */
  async record(apiKeyId: string, spend: LlmTokenSpend): Promise<{ totalTokens: number }> {
    const key = llmTokensKey(apiKeyId, llmTokensPeriodOf(new Date(this.now())).period);
    const replies = await this.redis
      .multi()
      .hincrby(key, 'prompt', spend.promptTokens)
      .hincrby(key, 'completion', spend.completionTokens)
      .hincrby(key, 'total', spend.totalTokens)
      .hincrby(key, 'calls', 1)
      .hincrby(key, 'estimated', spend.estimated ? 1 : 0)
      .expire(key, LLM_TOKENS_RETENTION_SEC)
      .exec();
    const [error, total] = replies?.[2] ?? [new Error('the token count was not recorded (transaction aborted)')];
    if (error) throw error;
    return { totalTokens: Number(total) };
  }

  /**
   * The key's budget, what is left of it this month, and its counts for the current month and the `months - 1` before
   * it (newest first; earlier months only when they have any use).
   */
  async usage(apiKeyId: string, months = 1): Promise<LlmTokensUsage> {
    const at = new Date(this.now());
    const periods = Array.from({ length: months }, (_, back) => llmTokensPeriodBefore(at, back));
    // One read per month: the keys are in different slots of a Redis Cluster, so no multi-key command.
    const counts = await Promise.all(periods.map((p) => this.redis.hgetall(llmTokensKey(apiKeyId, p.period))));
    const rows: LlmTokensPeriod[] = periods.map((p, i) => {
      const c = counts[i] ?? {};
      const n = (field: string) => Number(c[field] ?? 0) || 0;
      return {
        ...p,
        promptTokens: n('prompt'),
        completionTokens: n('completion'),
        totalTokens: n('total'),
        calls: n('calls'),
        estimatedCalls: n('estimated'),
      };
    });
    const [current, ...earlier] = rows as [LlmTokensPeriod, ...LlmTokensPeriod[]];
    const budget = this.budget;
    return {
      budget,
      remaining: budget > 0 ? Math.max(0, budget - current.totalTokens) : null,
      current,
      periods: [current, ...earlier.filter((p) => p.calls > 0)],
    };
  }
}
