import { describe, expect, it } from '@jest/globals';
import { llmTokensPeriodOf, TrawlError, type LlmTokenSpend, type LlmTokensUsage } from '@trawl/contracts';
import { TokenLedger, type TokenLedgerTransport } from './token-ledger.service.js';

/** task-service's side, in memory: a budget and the key's count of the month. */
function ledgerOf(budget: number, used: number, failRecord = false) {
  const recorded: [string, LlmTokenSpend][] = [];
  const current = { ...llmTokensPeriodOf(new Date('2026-11-28T12:00:00Z')) };
  const transport: TokenLedgerTransport = {
    usage: async (): Promise<LlmTokensUsage> => {
      const period = {
        ...current,
        promptTokens: used,
        completionTokens: 0,
        totalTokens: used,
        calls: 1,
        estimatedCalls: 0,
      };
      return {
        budget,
        remaining: budget > 0 ? Math.max(0, budget - used) : null,
        current: period,
        periods: [period],
      };
    },
    record: async (apiKeyId, spend) => {
      if (failRecord) throw new TrawlError('SERVICE_UNAVAILABLE', 'no responder');
      recorded.push([apiKeyId, spend]);
      return { totalTokens: used + spend.totalTokens };
    },
  };
  return { ledger: new TokenLedger(transport), recorded };
}

describe('TokenLedger: checked before the model, counted after', () => {
  it('admits a key with tokens left, or with no cap', async () => {
    await expect(ledgerOf(1000, 999).ledger.admit('k')).resolves.toBeUndefined();
    await expect(ledgerOf(0, 5_000_000).ledger.admit('k')).resolves.toBeUndefined();
  });

  it('refuses a key whose budget is spent or overrun: 429 LLM_BUDGET_EXHAUSTED saying until when', async () => {
    for (const used of [1000, 1250]) {
      const e = await ledgerOf(1000, used)
        .ledger.admit('k')
        .catch((err: unknown) => err);
      expect(e).toBeInstanceOf(TrawlError);
      expect(e).toMatchObject({ code: 'LLM_BUDGET_EXHAUSTED', retryable: false, field: 'formats' });
      expect((e as Error).message).toBe(
        `this API key has spent its language-model tokens for 2026-11 (${used} of 1000); the json and summary ` +
          'formats are refused until 2026-12-01T00:00:00.000Z (other formats are not affected)',
      );
    }
  });

  it('records a spend for its key, and a record that fails does not fail the scrape', async () => {
    const spend = { promptTokens: 10, completionTokens: 2, totalTokens: 12, estimated: false };
    const ok = ledgerOf(0, 0);
    await ok.ledger.record('key-1', spend);
    expect(ok.recorded).toEqual([['key-1', spend]]);
    await expect(ledgerOf(0, 0, true).ledger.record('key-1', spend)).resolves.toBeUndefined();
  });
});
