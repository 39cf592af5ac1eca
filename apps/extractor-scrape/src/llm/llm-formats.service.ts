import { TrawlError, type JsonFormat, type LlmTokenSpend, type ScrapeFormatOption } from '@trawl/contracts';
import { buildJsonRequest, buildSummaryRequest, type ChatRequest, type PageForModel } from './chat-request.builder.js';
import { ChatCompletionsClient, type ChatAnswer } from './chat-completions.client.js';
import { AnswerValidationPool } from './answer-validation.pool.js';
import { checkAnswerSchema, jsonObjectOf, schemaFailure, summaryAnswerOf } from './llm-answer.validator.js';
import type { LlmSettings } from './llm.settings.js';
import type { TokenLedger } from './token-ledger.service.js';

/** What a scrape asks of the model: the `json` format (its schema compiled) and/or a summary. */
export interface LlmPlan {
  json?: { format: JsonFormat; schema?: Record<string, unknown> };
  summary: boolean;
}

/** The answer fields of a scrape (Firecrawl's names). */
export interface LlmAnswers {
  json?: Record<string, unknown>;
  summary?: string;
}

/**
 * The `json` and `summary` formats (ADR 0029). `plan` runs before the page is fetched: without an endpoint
 * configured it refuses the scrape with 400 VALIDATION_FAILED saying so, and a schema that does not compile is
 * refused the same way. `answer` runs after the content step, on the page's main content, within the scrape's
 * deadline; the two formats are asked at once.
 */
export class LlmFormatsService {
  private readonly client?: ChatCompletionsClient;
  private readonly validation: AnswerValidationPool;

  constructor(
    private readonly settings: LlmSettings | undefined,
    validationBudgetMs?: number,
    private readonly ledger?: TokenLedger,
  ) {
    if (settings) this.client = new ChatCompletionsClient(settings);
    this.validation = new AnswerValidationPool(validationBudgetMs);
  }

  plan(formats: readonly ScrapeFormatOption[]): LlmPlan | undefined {
    let json: JsonFormat | undefined;
    let summary = false;
    for (const f of formats) {
      if (f === 'summary' || (typeof f === 'object' && f.type === 'summary')) summary = true;
      else if (typeof f === 'object' && f.type === 'json') json = f;
    }
    if (!json && !summary) return undefined;
    if (!this.settings) {
      const names = [json ? 'json' : '', summary ? 'summary' : ''].filter(Boolean).join(' and ');
      throw new TrawlError(
        'VALIDATION_FAILED',
        `formats: ${names} ${json && summary ? 'need' : 'needs'} a language model, and none is configured on this service ` +
          '(LLM_BASE_URL and LLM_MODEL of extractor-scrape)',
        { field: 'formats' },
      );
    }
    return {
      ...(json ? { json: { format: json, ...(json.schema ? { schema: checkAnswerSchema(json.schema) } : {}) } } : {}),
      summary,
    };
  }

  /**
   * Before the page is fetched: refuses the scrape with LLM_BUDGET_EXHAUSTED when the key (`tenant`) has spent its
   * tokens of the month (ADR 0040). A scrape without a key (none authenticated it) is neither checked nor counted.
   */
  async admit(tenant: string | undefined): Promise<void> {
    if (this.ledger && tenant !== undefined) await this.ledger.admit(tenant);
  }

  async answer(plan: LlmPlan, page: PageForModel, deadline: number, tenant?: string): Promise<LlmAnswers> {
    const { settings, client, ledger } = this;
    if (!settings || !client) return {};
    const { model, maxInputChars } = settings;
    // Each answered call's tokens go to the key that asked, the answer's use or not (ADR 0040).
    const onSpend = ledger && tenant !== undefined ? (spend: LlmTokenSpend) => ledger.record(tenant, spend) : undefined;
    const ask = (body: ChatRequest) => client.complete(body, deadline, onSpend);
    const [json, summary] = await Promise.all([
      plan.json
        ? ask(
            buildJsonRequest(model, { schema: plan.json.schema, prompt: plan.json.format.prompt }, page, maxInputChars),
          ).then((a) => this.checked(a, plan.json?.schema))
        : undefined,
      plan.summary ? ask(buildSummaryRequest(model, page, maxInputChars)).then(summaryAnswerOf) : undefined,
    ]);
    return { ...(json ? { json } : {}), ...(summary !== undefined ? { summary } : {}) };
  }

  /** The answer's object, validated against the schema in the worker when there is one. */
  private async checked(answer: ChatAnswer, schema: Record<string, unknown> | undefined) {
    const value = jsonObjectOf(answer);
    if (!schema) return value;
    const verdict = await this.validation.validate(schema, value);
    if (!verdict.valid) throw schemaFailure(verdict);
    return value;
  }

  async close(): Promise<void> {
    await this.client?.close();
    await this.validation.close();
  }
}
