import type { ExtractorScrapeEnv } from '@trawl/config';

/** The chat-completions endpoint of the `json` and `summary` formats (ADR 0029), from LLM_* variables. */
export interface LlmSettings {
  /** Base URL as the OpenAI clients take it (`…/v1`); the request goes to `<baseUrl>/chat/completions`. */
  baseUrl: string;
  model: string;
  /** Bearer token; empty: no Authorization header. */
  apiKey: string;
  /** Longest wait for one answer, ms (within the scrape's deadline). */
  timeoutMs: number;
  /** Most characters of page text sent. */
  maxInputChars: number;
}

/** The endpoint's settings, or undefined when LLM_BASE_URL is empty (the formats are then refused with 400). */
export function llmSettingsOf(env: ExtractorScrapeEnv): LlmSettings | undefined {
  if (env.LLM_BASE_URL === '') return undefined;
  return {
    baseUrl: env.LLM_BASE_URL.replace(/\/+$/, ''),
    model: env.LLM_MODEL,
    apiKey: env.LLM_API_KEY,
    timeoutMs: env.LLM_TIMEOUT_MS,
    maxInputChars: env.LLM_MAX_INPUT_CHARS,
  };
}
