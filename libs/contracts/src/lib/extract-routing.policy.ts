import { scrapePageRequest, type ScrapePageRequestDto } from './dto/scrape-page-request.dto.js';
import { PAGE_SCRAPE_OPTION_FIELDS, type ScrapeOptions } from './dto/scrape-options.dto.js';
import type { ScrapeEngine, ScrapeFormat, ScrapeFormatOption } from './dto/scrape-request.dto.js';
import type { ExtractType } from './extract-type.constants.js';
import type { ExtractUrlRequest, RpcSubject } from './rpc-contract.types.js';
import { SUBJECTS } from './subjects.constants.js';
import type { UpstreamEngine } from './upstream-engine.constants.js';

/** The subject that serves one URL of each `/extract` type: for POST /extract and for URL tasks of that type. */
export const EXTRACT_SUBJECT_BY_TYPE = {
  retail: SUBJECTS.extractRetail,
  'mp-maps': SUBJECTS.extractPlace,
  'mp-search': SUBJECTS.extractMapsSearchUrl,
  scrape: SUBJECTS.scrapePage,
} as const satisfies Record<ExtractType, RpcSubject>;

/** What a `scrape`-type extraction asks for unless configured otherwise (TASK_SCRAPE_FORMATS): markdown and HTML. */
export const EXTRACT_SCRAPE_FORMATS: readonly ScrapeFormat[] = ['markdown', 'html'];

/** One URL of an `/extract` type, as its extractor is asked: the subject and the payload that go together. */
export type ExtractUrlCall =
  | {
      subject: Exclude<(typeof EXTRACT_SUBJECT_BY_TYPE)[ExtractType], typeof SUBJECTS.scrapePage>;
      payload: ExtractUrlRequest;
    }
  | { subject: typeof SUBJECTS.scrapePage; payload: ScrapePageRequestDto };

/** The fields of one URL to extract (the URL with its `params` already appended). */
export interface ExtractUrlFields {
  url: string;
  timeout: number;
  params?: ExtractUrlRequest['params'];
  meta?: boolean;
  engine?: UpstreamEngine;
  /** Who the URL is extracted for (the authenticated API key id), never a caller's field: `scrape` carries it. */
  tenant?: string;
  /** Type `scrape`: the request's page options, as POST /scrape takes them (ADR 0019, ADR 0039). */
  scrapeOptions?: ScrapeOptions;
}

/** Options only the browser engine can honour (ADR 0019): a screenshot, actions, a location, `mobile: true`. */
export function needsBrowser(options: ScrapeOptions): boolean {
  const screenshot = (options.formats ?? []).some((f) =>
    typeof f === 'string' ? f.startsWith('screenshot') : f.type === 'screenshot',
  );
  return screenshot || (options.actions?.length ?? 0) > 0 || options.location !== undefined || options.mobile === true;
}

/** How a `scrape`-type URL is scraped: the formats asked for, and the engine when the request names none. */
export interface ExtractScrapeOptions {
  formats: readonly ScrapeFormat[];
  engine?: ScrapeEngine;
}

/**
 * The request for one URL of `type`: `retail`, `mp-maps` and `mp-search` go to their upstream extractor with the URL,
 * timeout, params, meta and engine; `scrape` goes to extractor-scrape with the URL, the formats (the request's, else
 * `scrape.formats`), every other page option the request gives, the timeout and the engine (the request's, else
 * `scrape.engine`), and the tenant. Used by the gateway (POST /extract) and task-service (URL tasks).
 */
export function extractUrlCall(
  type: ExtractType,
  fields: ExtractUrlFields,
  scrape: ExtractScrapeOptions = { formats: EXTRACT_SCRAPE_FORMATS },
): ExtractUrlCall {
  if (type === 'scrape') {
    const options = fields.scrapeOptions ?? {};
    // A configured default is a default: options only a browser can honour are served by the browser, as
    // extractor-scrape does with its own default (ADR 0039); a request that names `http` with them was refused.
    const engine = fields.engine ?? (scrape.engine && needsBrowser(options) ? 'browser' : scrape.engine);
    // Each page option given, by the one list of them (anything else in the options is not passed on).
    const given = Object.fromEntries(
      PAGE_SCRAPE_OPTION_FIELDS.filter((f) => f !== 'formats' && options[f] !== undefined).map((f) => [f, options[f]]),
    ) as Omit<ScrapeOptions, 'formats'>;
    return {
      subject: SUBJECTS.scrapePage,
      payload: scrapePageRequest(
        {
          url: fields.url,
          formats: options.formats ? (options.formats as ScrapeFormatOption[]) : [...scrape.formats],
          timeout: fields.timeout,
          ...(engine ? { engine } : {}),
          ...given,
        },
        fields.tenant,
      ),
    };
  }
  return {
    subject: EXTRACT_SUBJECT_BY_TYPE[type],
    payload: {
      url: fields.url,
      timeout: fields.timeout,
      ...(fields.params ? { params: fields.params } : {}),
      ...(fields.meta ? { meta: true } : {}),
      ...(fields.engine ? { engine: fields.engine } : {}),
    },
  };
}
