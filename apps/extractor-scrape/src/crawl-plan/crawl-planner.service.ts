import {
  CRAWL_PLAN_LIMITS,
  TrawlError,
  type CrawlPlan,
  type CrawlPlanReady,
  type CrawlPlanRequestDto,
} from '@trawl/contracts';
import { ChatCompletionsClient } from '../llm/chat-completions.client.js';
import { jsonObjectOf } from '../llm/llm-answer.validator.js';
import type { LlmSettings } from '../llm/llm.settings.js';
import type { ModelUse, TokenLedger } from '../llm/token-ledger.service.js';
import { buildCrawlPlanRequest } from './crawl-plan-request.builder.js';
import { crawlPlanOf } from './crawl-plan.reader.js';

/** What a spent token budget refuses here (ADR 0040). */
const PLAN_USE: ModelUse = {
  refused: 'crawls planned from a prompt are',
  unaffected: 'crawls with their options given are not affected',
  field: 'prompt',
};

/** Time kept back from the caller's deadline for the reply to travel, ms. */
const REPLY_MARGIN_MS = 2_000;

/**
 * A crawl's options drawn from a prompt (ADR 0042): the caller's words, the crawl's scope and a sample of the site's
 * URLs (mapped by the gateway) put to the chat-completions endpoint of the `json` format (ADR 0029), its answer read
 * option by option against the crawl's rules (`crawlPlanOf`). The key's token budget is checked before and its spend
 * counted after (ADR 0040). Without an endpoint configured, VALIDATION_FAILED on `prompt`.
 */
export class CrawlPlanner {
  private readonly client?: ChatCompletionsClient;

  constructor(
    private readonly settings: LlmSettings | undefined,
    private readonly ledger?: TokenLedger,
  ) {
    if (settings) this.client = new ChatCompletionsClient(settings);
  }

  /**
   * Whether a plan for `tenant` would be taken now: a model configured and the key's tokens not spent. The gateway asks
   * before it maps the site, so a plan refused here costs no map; `plan` checks the same again.
   */
  async ready(tenant: string | undefined): Promise<CrawlPlanReady> {
    this.model();
    if (this.ledger && tenant !== undefined) await this.ledger.admit(tenant, PLAN_USE);
    return { ready: true };
  }

  async plan(req: CrawlPlanRequestDto): Promise<CrawlPlan> {
    const { settings, client } = this.model();
    const ledger = this.ledger;
    const deadline = Date.now() + CRAWL_PLAN_LIMITS.deadlineMs - REPLY_MARGIN_MS;
    const tenant = req.apiKeyId;
    if (ledger && tenant !== undefined) await ledger.admit(tenant, PLAN_USE);
    const siteUrls = within(req.siteUrls, settings.maxInputChars);
    const answer = await client.complete(
      buildCrawlPlanRequest(settings.model, { url: req.url, prompt: req.prompt, scope: req.scope, siteUrls }),
      deadline,
      ledger && tenant !== undefined ? (spend) => ledger.record(tenant, spend) : undefined,
    );
    const read = crawlPlanOf(jsonObjectOf(answer));
    const cut = req.siteUrls.length - siteUrls.length;
    const warnings =
      cut > 0
        ? [`${cut} of the site's URLs were not shown to the model (LLM_MAX_INPUT_CHARS)`, ...read.warnings]
        : read.warnings;
    return { url: req.url, options: read.options, warnings };
  }

  /** The model's settings and client; VALIDATION_FAILED on `prompt` where none is configured. */
  private model(): { settings: LlmSettings; client: ChatCompletionsClient } {
    const { settings, client } = this;
    if (!settings || !client) {
      throw new TrawlError(
        'VALIDATION_FAILED',
        'prompt: planning a crawl from a prompt needs a language model, and none is configured on this service ' +
          '(LLM_BASE_URL and LLM_MODEL of extractor-scrape); give the crawl’s options instead',
        { field: 'prompt' },
      );
    }
    return { settings, client };
  }

  async close(): Promise<void> {
    await this.client?.close();
  }
}

/** The first URLs whose lines fit in `maxChars` characters (the model's input bound, LLM_MAX_INPUT_CHARS). */
function within(urls: readonly string[], maxChars: number): string[] {
  const kept: string[] = [];
  let size = 0;
  for (const url of urls) {
    size += url.length + 1;
    if (size > maxChars) break;
    kept.push(url);
  }
  return kept;
}
