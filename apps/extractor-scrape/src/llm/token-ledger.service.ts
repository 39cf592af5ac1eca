import { Logger } from '@nestjs/common';
import { TrawlError, type LlmTokenSpend, type LlmTokensUsage } from '@trawl/contracts';

/** The two questions extractor-scrape puts to task-service about a key's tokens (ADR 0040). */
export interface TokenLedgerTransport {
  usage(apiKeyId: string): Promise<LlmTokensUsage>;
  record(apiKeyId: string, spend: LlmTokenSpend): Promise<unknown>;
}

/** A use of the model a spent budget refuses: what the error names, what it leaves alone, the field it points at. */
export interface ModelUse {
  refused: string;
  unaffected: string;
  field: string;
}

/** The `json` and `summary` formats of a scrape. */
export const FORMATS_USE: ModelUse = {
  refused: 'the json and summary formats are',
  unaffected: 'other formats are not affected',
  field: 'formats',
};

/** Longest wait for task-service's answer about a key's tokens, ms. */
export const LEDGER_DEADLINE_MS = 5_000;

/**
 * The key's language-model budget as extractor-scrape sees it (ADR 0040): before the model is called, `admit` asks
 * task-service what is left this month and refuses the scrape with 429 LLM_BUDGET_EXHAUSTED when nothing is (no page
 * is fetched); after each answered call, `record` adds what it spent. The check is before and the count after, so
 * the calls admitted while tokens were left may overrun the budget by their answers. If task-service cannot be asked,
 * `admit` fails (SERVICE_UNAVAILABLE, retryable: the budget is not waived) and a failed `record` is logged, and the
 * scrape still answers (its tokens are then not counted).
 */
export class TokenLedger {
  private readonly logger = new Logger('TokenLedger');

  constructor(private readonly transport: TokenLedgerTransport) {}

  /** `use`: what a spent budget refuses, as the error says it (the `json` and `summary` formats by default). */
  async admit(apiKeyId: string, use: ModelUse = FORMATS_USE): Promise<void> {
    const usage = await this.transport.usage(apiKeyId);
    if (usage.remaining === null || usage.remaining > 0) return;
    const nextPeriod = new Date(Date.parse(usage.current.endDate) + 1).toISOString();
    throw new TrawlError(
      'LLM_BUDGET_EXHAUSTED',
      `this API key has spent its language-model tokens for ${usage.current.period} ` +
        `(${usage.current.totalTokens} of ${usage.budget}); ${use.refused} refused until ` +
        `${nextPeriod} (${use.unaffected})`,
      { field: use.field },
    );
  }

  async record(apiKeyId: string, spend: LlmTokenSpend): Promise<void> {
    try {
      await this.transport.record(apiKeyId, spend);
    } catch (e) {
      this.logger.warn(
        `tokens of a model call not counted for key ${apiKeyId} (${spend.totalTokens}): ${e instanceof Error ? e.message : String(e)}`,
      );
    }
  }
}
