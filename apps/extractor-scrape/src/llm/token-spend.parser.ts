import type { LlmTokenSpend } from '@trawl/contracts';
import type { ChatRequest } from './chat-request.builder.js';

/** Characters per token of the estimate used when an endpoint reports no `usage` (OpenAI's rule of thumb for English). */
export const CHARS_PER_TOKEN = 4;

const count = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.round(value) : undefined;

/**
 * What one chat completion spent (ADR 0040): the answer's `usage` (`prompt_tokens`, `completion_tokens`,
 * `total_tokens`, OpenAI's names, which the compatible servers use too); `total_tokens` when given and not 0, else
 * prompt + completion. When the answer has no usable `usage` (some servers leave it out, or it is not JSON), both are
 * estimated at one token per 4 characters: the messages sent, and the answer's text. Pure.
 */
export function tokenSpendOf(answerText: string, request: ChatRequest): LlmTokenSpend {
  let parsed: unknown;
  try {
    parsed = JSON.parse(answerText);
  } catch {
    parsed = undefined;
  }
  const usage = (parsed as { usage?: Record<string, unknown> } | undefined)?.usage;
  const prompt = count(usage?.prompt_tokens);
  const completion = count(usage?.completion_tokens);
  if (usage && typeof usage === 'object' && prompt !== undefined && completion !== undefined) {
    const total = count(usage.total_tokens);
    return {
      promptTokens: prompt,
      completionTokens: completion,
      totalTokens: total ? total : prompt + completion,
      estimated: false,
    };
  }
  const sent = request.messages.reduce((n, m) => n + m.content.length, 0);
  const choices = (parsed as { choices?: { message?: { content?: unknown } }[] } | undefined)?.choices;
  const content = Array.isArray(choices) ? choices[0]?.message?.content : undefined;
  const answered = typeof content === 'string' ? content.length : answerText.length;
  const promptTokens = Math.ceil(sent / CHARS_PER_TOKEN);
  const completionTokens = Math.ceil(answered / CHARS_PER_TOKEN);
  return { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens, estimated: true };
}
