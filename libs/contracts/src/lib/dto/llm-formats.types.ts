/**
 * The formats a language model answers (ADR 0029), in Firecrawl v2's shapes: `summary` (or `{ type: 'summary' }`),
 * a summary of the page's main content, and `{ type: 'json', schema, prompt }`, an object read out of the page that
 * follows the caller's JSON Schema. Both need an OpenAI-compatible chat-completions endpoint configured on
 * extractor-scrape (LLM_BASE_URL, LLM_MODEL); without one the scrape is refused with 400.
 */

/** `formats` entry for a summary: the string form (the object form `{ type: 'summary' }` is accepted too). */
export const SUMMARY_FORMAT = 'summary';

/** The `json` format: a JSON Schema the answer must follow, a prompt saying what to read, or both. */
export interface JsonFormat {
  type: 'json';
  /** A JSON Schema (draft-07) of the object to return; its root should be an object schema. */
  schema?: Record<string, unknown>;
  /** What to extract, in words (with or without a schema). */
  prompt?: string;
}

/** The object form of the summary format. */
export interface SummaryFormat {
  type: 'summary';
}

/** Bounds of the LLM formats' inputs (checked at the gateway; the page text sent is bounded by LLM_MAX_INPUT_CHARS). */
export const LLM_FORMAT_LIMITS = {
  /** Longest `schema`, characters of its JSON. */
  maxSchemaChars: 32_768,
  /** Longest `prompt`, characters. */
  maxPromptChars: 10_000,
} as const;
