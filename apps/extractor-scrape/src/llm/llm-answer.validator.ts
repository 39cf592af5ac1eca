import { TrawlError } from '@trawl/contracts';
import { answerAjv } from './answer-ajv.factory.js';
import type { Verdict } from './answer-validation.worker.js';
import type { ChatAnswer } from './chat-completions.client.js';

/**
 * Checks the caller's JSON Schema (draft-07; `$schema` is dropped, so a 2019-09/2020-12 URI does not stop it) by
 * compiling it with Ajv before the page is fetched: a schema that does not compile is VALIDATION_FAILED on `formats`.
 * Answers are validated in the worker (AnswerValidationPool), never here on the event loop: a schema's `pattern`
 * runs on the model's answer. Known `format`s are checked (ajv-formats), unknown keywords and formats are ignored,
 * as models' schemas carry many. A fresh Ajv each time: its cache would otherwise keep every caller's schema. Returns
 * the schema as sent to the model and validated.
 */
export function checkAnswerSchema(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _drop, ...rest } = schema;
  void _drop;
  try {
    answerAjv().compile(rest);
  } catch (e) {
    throw new TrawlError('VALIDATION_FAILED', `formats: the json schema is not a valid JSON Schema: ${String(e)}`, {
      field: 'formats',
    });
  }
  return rest;
}

/** The model's words, or LLM_ANSWER_INVALID when it refused, was cut off, or said nothing. */
function contentOf(answer: ChatAnswer): string {
  if (answer.refusal) throw new TrawlError('LLM_ANSWER_INVALID', `the model refused: ${answer.refusal.slice(0, 300)}`);
  if (answer.finishReason === 'length')
    throw new TrawlError(
      'LLM_ANSWER_INVALID',
      'the model’s answer was cut off at its token limit (finish_reason length)',
    );
  if (answer.finishReason === 'content_filter')
    throw new TrawlError('LLM_ANSWER_INVALID', 'the model’s answer was withheld by its content filter');
  const content = answer.content?.trim() ?? '';
  if (content === '') throw new TrawlError('LLM_ANSWER_INVALID', 'the model answered nothing');
  return content;
}

/**
 * The `json` answer as an object: one JSON object (a single ```json fence around it is taken off, as some servers add
 * one in `json_object` mode). Anything else is LLM_ANSWER_INVALID; the schema is checked after (`schemaFailure`).
 */
export function jsonObjectOf(answer: ChatAnswer): Record<string, unknown> {
  const content = contentOf(answer);
  const unfenced = /^```(?:json)?\s*\n([\s\S]*)\n```$/.exec(content)?.[1] ?? content;
  let value: unknown;
  try {
    value = JSON.parse(unfenced);
  } catch {
    throw new TrawlError('LLM_ANSWER_INVALID', 'the model’s answer is not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new TrawlError('LLM_ANSWER_INVALID', 'the model’s answer is not a JSON object');
  return value as Record<string, unknown>;
}

/**
 * The error for an answer the worker found not valid against the caller's schema: LLM_ANSWER_INVALID naming the first
 * failures by their JSON pointer, never passed on as if it were the object asked for.
 */
export function schemaFailure(verdict: Verdict): TrawlError {
  const errors = verdict.errors ?? [];
  const shown = errors.slice(0, 3).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is not valid'}`);
  const more = errors.length > 3 ? ` (and ${errors.length - 3} more)` : '';
  return new TrawlError(
    'LLM_ANSWER_INVALID',
    `the model’s answer does not follow the json schema: ${verdict.failure ?? shown.join('; ') + more}`,
  );
}

/** The `summary` answer: the model's text, trimmed. */
export function summaryAnswerOf(answer: ChatAnswer): string {
  return contentOf(answer);
}
