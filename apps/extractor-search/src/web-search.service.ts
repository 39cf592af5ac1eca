import { Inject, Injectable } from '@nestjs/common';
import type { WebSearchRequestDto, WebSearchResult } from '@trawl/contracts';
import { replyDeadlineMs } from '@trawl/messaging';
import { buildSearchUrl } from '@trawl/parsers';
import { cookieList, GOOGLE_CONSENT_COOKIE, ParseWorkPool, UpstreamPageSource } from '@trawl/upstream';

export const SEARCH_SETTINGS = Symbol('SEARCH_SETTINGS');

export interface SearchSettings {
  /** Origin of the search site (Google, or the upstream simulator). */
  baseUrl: string;
  /** Results one search page holds (10, or 100). */
  pageSize: number;
}

const DEFAULT_NUM = 10;
const CONSENT = cookieList(GOOGLE_CONSENT_COOKIE);

/**
 * A web search: fetches as many result pages as `num` needs (`pageSize` results each, from `start`), one after another
 * under one deadline, parses each, and concatenates them: organic results in order with a continuing `realPosition`
 * (duplicates across pages dropped), the rest (people also ask, related searches, knowledge panel) from the first
 * page. Stops early when a page has no results. Each page comes through the request's engine (UpstreamPageSource:
 * http, browser, or auto); in `auto` a host that needed a browser for one page gets it for the next at once.
 */
@Injectable()
export class WebSearchService {
  constructor(
    private readonly pages: UpstreamPageSource,
    @Inject(SEARCH_SETTINGS) private readonly settings: SearchSettings,
    private readonly parsing: ParseWorkPool,
  ) {}

  async search(req: WebSearchRequestDto): Promise<WebSearchResult> {
    const deadline = this.pages.deadline(replyDeadlineMs(req.timeout));
    const start = req.start ?? 0;
    const wanted = req.num ?? DEFAULT_NUM;
    const { pageSize } = this.settings;
    const pageCount = Math.ceil(wanted / pageSize);
    let merged: WebSearchResult | undefined;
    let referer: string | undefined;
    for (let i = 0; i < pageCount; i++) {
      const pageOffset = start + i * pageSize;
      const url = buildSearchUrl(this.settings.baseUrl, { ...req, start: pageOffset, num: pageSize });
      const { value: page } = await this.pages.get(
        {
          url,
          what: 'search page',
          deadline,
          engine: req.engine,
          hl: req.hl,
          gl: req.gl,
          referer,
          // Google's consent answered ("reject all"), so EU clients get results in either engine.
          cookies: CONSENT,
        },
        (p) =>
          this.parsing.parse({ parser: 'search', html: p.html, pageOffset }, 'the search page', deadline.remainingMs()),
      );
      merged = merged ? concatPages(merged, page) : page;
      referer = url;
      if (page.results.length === 0) break;
    }
    const result = merged as WebSearchResult;
    result.results = result.results.slice(0, wanted).map((item, i) => ({ ...item, realPosition: start + i + 1 }));
    return result;
  }
}

function concatPages(first: WebSearchResult, next: WebSearchResult): WebSearchResult {
  const seen = new Set(first.results.map((r) => r.link));
  const fresh = next.results.filter((r) => !seen.has(r.link));
  return { ...first, results: [...first.results, ...fresh] };
}
