import type { CheerioAPI } from 'cheerio';
import type { WebSearchResult } from '@trawl/contracts';
import { readKnowledgePanel } from './knowledge-panel.reader.js';
import { readOrganicResults } from './organic-results.reader.js';
import { readPeopleAlsoAsk } from './people-also-ask.reader.js';
import { readRelatedSearches } from './related-searches.reader.js';
import { assertSearchPage } from './search-page.classifier.js';
import { readAds, readAiOverview, readLocalResults, readTopStories } from './serp-features.reader.js';
import { clean, scriptImageMap } from './serp-dom.util.js';
import { loadPageDom } from '../scan/page-dom.factory.js';
import type { ScanMeter } from '../scan/scan-meter.types.js';

export interface ParseSearchPageOptions {
  /** Results before this page (the request's `start`): realPosition continues from it. */
  pageOffset?: number;
  /** Counts the parse's work (tests). */
  meter?: ScanMeter;
}

/**
 * Parses a Google web search results page (desktop JS or no-JS markup, 2020 onwards, any interface language).
 * Throws TrawlError UPSTREAM_BLOCKED for captcha/consent pages and PAGE_NOT_RECOGNISED for other pages; a page
 * with no results gives empty lists.
 */
export function parseSearchPage(html: string, opts: ParseSearchPageOptions = {}): WebSearchResult {
  // htmlparser2 (not parse5): several times faster on 1-2 MB results pages, and Google's markup is well formed.
  const $ = loadPageDom(html, opts.meter);
  assertSearchPage($);
  const images = scriptImageMap($);
  const pageOffset = Math.max(0, Math.trunc(opts.pageOffset ?? 0));

  const query = currentQuery($);
  const peopleAlsoAsk = readPeopleAlsoAsk($, query);
  const result: WebSearchResult = {
    knowledgePanel: readKnowledgePanel($, images),
    location: { htmlLang: clean($('html').attr('lang')) },
    peopleAlsoAsk,
    relatedSearches: readRelatedSearches(
      $,
      query,
      peopleAlsoAsk.map((p) => p.question),
    ),
    results: readOrganicResults($, { pageOffset, images }),
  };
  const ads = readAds($);
  if (ads.length) result.ads = ads;
  const localResults = readLocalResults($);
  if (localResults.length) result.localResults = localResults;
  const topStories = readTopStories($);
  if (topStories.length) result.topStories = topStories;
  const aiOverview = readAiOverview($);
  if (aiOverview) result.aiOverview = aiOverview;
  return result;
}

/** The query the page answers: the search box, else the title ("q - Google Search"). */
export function currentQuery($: CheerioAPI): string {
  const box = $('textarea[name="q"], input[name="q"]:not([type="hidden"])').first();
  const fromBox = clean(box.is('textarea') ? box.text() || box.attr('value') : box.attr('value'));
  if (fromBox) return fromBox;
  const title = clean($('title').first().text());
  const m = /^(.*)\s[-–—]\s[^-–—]*$/.exec(title);
  return m ? clean(m[1]) : '';
}
