import { TrawlError, type LlmTokenSpend } from '@trawl/contracts';
import { Agent, request } from 'undici';
import type { ChatRequest } from './chat-request.builder.js';
import type { LlmSettings } from './llm.settings.js';
import { tokenSpendOf } from './token-spend.parser.js';

/** Largest answer body read from the endpoint, bytes (a chat completion of one object or summary is far smaller). */
export const MAX_ANSWER_BYTES = 1024 * 1024;

/** What a chat completion said: its text, or the model's refusal, and why it stopped. */
export interface ChatAnswer {
  content: string | null;
  refusal: string | null;
  finishReason: string | null;
}

/** Endpoint statuses worth another attempt (rate limit, overload, the server's own failures). */
const RETRYABLE = (status: number) => status === 408 || status === 429 || status >= 500;

/**
 * POSTs one request to `<LLM_BASE_URL>/chat/completions` (ADR 0029). The URL is operator configuration, so it is not
 * SSRF-guarded (a model served on loopback is allowed); no caller's input reaches the URL or the headers. Like the
 * webhook sender (ADR 0007) it is not a page fetch: no redirects, one capped read. Failures are LLM_UNAVAILABLE
 * (retryable for 408/429/5xx and the network) or UPSTREAM_TIMEOUT when the caller's own deadline (the scrape's
 * timeout, a crawl plan's) ran out first.
 */
export class ChatCompletionsClient {
  private readonly agent = new Agent({ keepAliveTimeout: 10_000, connections: 16 });

  constructor(private readonly settings: LlmSettings) {}

  /**
   * One completion. `onSpend` is told what an answered call spent (its `usage`, or an estimate) before the answer is
   * read, so a call whose answer then proves unusable is counted too (ADR 0040).
   */
  async complete(
    body: ChatRequest,
    deadline: number,
    onSpend?: (spend: LlmTokenSpend) => Promise<void>,
  ): Promise<ChatAnswer> {
    const left = deadline - Date.now();
    if (left <= 0) throw new TrawlError('UPSTREAM_TIMEOUT', 'the request ran out of time before the model was asked');
    const byDeadline = left < this.settings.timeoutMs;
    const ms = byDeadline ? left : this.settings.timeoutMs;
    const signal = AbortSignal.timeout(ms);
    let status: number;
    let text: string;
    try {
      const res = await request(`${this.settings.baseUrl}/chat/completions`, {
        method: 'POST',
        dispatcher: this.agent,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          ...(this.settings.apiKey ? { authorization: `Bearer ${this.settings.apiKey}` } : {}),
        },
        body: JSON.stringify(body),
        signal,
      });
      status = res.statusCode;
      text = await readCapped(res.body);
    } catch (e) {
      if (e instanceof TrawlError) throw e;
      const timedOut = signal.aborted;
      if (timedOut && byDeadline)
        throw new TrawlError('UPSTREAM_TIMEOUT', 'the request’s time ran out while the model was answering');
      throw new TrawlError(
        'LLM_UNAVAILABLE',
        timedOut
          ? `the language model did not answer within ${this.settings.timeoutMs} ms (LLM_TIMEOUT_MS)`
          : `the language model endpoint could not be reached (${(e as { code?: string }).code ?? 'network error'})`,
        { retryable: true, cause: e },
      );
    }
    if (status < 200 || status > 299) {
      throw new TrawlError(
        'LLM_UNAVAILABLE',
        `the language model endpoint answered ${status}${endpointMessage(text)}`,
        { retryable: RETRYABLE(status), field: status === 400 || status === 422 ? 'formats' : undefined },
      );
    }
    await onSpend?.(tokenSpendOf(text, body));
    return chatAnswerOf(text);
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}

/** The endpoint's own words on a failure (OpenAI's `error.message`), cut short; never more than 300 characters. */
function endpointMessage(text: string): string {
  let message: unknown;
  try {
    message = (JSON.parse(text) as { error?: { message?: unknown } })?.error?.message;
  } catch {
    message = undefined;
  }
  const words = typeof message === 'string' ? message : '';
  return words ? `: ${words.slice(0, 300)}` : '';
}

/** The first choice of a chat completion, or LLM_ANSWER_INVALID when the body is not one. */
export function chatAnswerOf(text: string): ChatAnswer {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new TrawlError('LLM_ANSWER_INVALID', 'the language model endpoint answered with something other than JSON');
  }
  const choice = (parsed as { choices?: unknown })?.choices;
  const first = Array.isArray(choice) ? (choice[0] as Record<string, unknown> | undefined) : undefined;
  const message = first?.message as Record<string, unknown> | undefined;
  if (typeof message !== 'object' || message === null)
    throw new TrawlError('LLM_ANSWER_INVALID', 'the language model endpoint’s answer has no choices[0].message');
  return {
    content: typeof message.content === 'string' ? message.content : null,
    refusal: typeof message.refusal === 'string' ? message.refusal : null,
    finishReason: typeof first?.finish_reason === 'string' ? first.finish_reason : null,
  };
}

async function readCapped(body: AsyncIterable<Buffer> & { destroy(): unknown }): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > MAX_ANSWER_BYTES) {
      body.destroy();
      throw new TrawlError(
        'LLM_ANSWER_INVALID',
        `the language model's answer is larger than ${MAX_ANSWER_BYTES} bytes`,
      );
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
