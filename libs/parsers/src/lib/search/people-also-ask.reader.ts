// "People also ask". The question comes from data-q (2023+), else the expander button's text (2019+). The answer is
// only in the page when Google pre-rendered it (otherwise it loads on click): then it is the featured-snippet box
// (data-attrid="wa:/description") and the source result's <h3> link.
import type { CheerioAPI } from 'cheerio';
import { isTag, type Element } from 'domhandler';
import type { PeopleAlsoAskItem } from '@trawl/contracts';
import { AI_OVERVIEW_REGIONS } from './serp-regions.constants.js';
import { attrOf, isGoogleUtilityLink, nodeText, resolveHref } from './serp-dom.util.js';
import { pageQuery, type PageQuery } from '../scan/page-query.util.js';

const fold = (s: string): string =>
  s
    .toLocaleLowerCase()
    .replace(/[\s?¿!¡.。？]+/g, ' ')
    .trim();

/**
 * The "people also ask" questions. `query` is the page's own query: some layouts repeat it as a data-q expander
 * beside the questions (the block's data-initq names it too), and it is never a question of its own.
 */
export function readPeopleAlsoAsk($: CheerioAPI, query = ''): PeopleAlsoAskItem[] {
  const page = pageQuery($);
  const items: PeopleAlsoAskItem[] = [];
  const seen = new Set<string>();
  const own = new Set(
    [query, ...page.find(page.root, '[data-initq]').map((e) => attrOf(e, 'data-initq') ?? '')]
      .map(fold)
      .filter(Boolean),
  );
  for (const pair of page.find(
    page.root,
    '.related-question-pair, [jsname="yEVEwb"], [data-q], g-accordion-expander',
  )) {
    if (page.within(pair, AI_OVERVIEW_REGIONS)) continue;
    const expander = page.first(pair, '[aria-expanded], [role="button"], g-accordion-expander');
    if (!page.is(pair, '.related-question-pair, g-accordion-expander') && !expander) continue;
    const question = questionOf(page, pair, expander);
    if (!question || question.length > 300 || seen.has(question.toLowerCase()) || own.has(fold(question))) continue;
    seen.add(question.toLowerCase());
    items.push({ question, ...answerOf(page, pair) });
  }
  return items;
}

function questionOf(page: PageQuery, pair: Element, expander: Element | undefined): string {
  const attr = attrOf(pair, 'data-q') ?? attrOf(page.first(pair, '[data-q]'), 'data-q');
  if (attr && attr.trim()) return attr.trim();
  return nodeText(expander ?? pair);
}

function answerOf(page: PageQuery, pair: Element): Omit<PeopleAlsoAskItem, 'question'> {
  const box = page.first(pair, '[data-attrid="wa:/description"], [data-attrid*="description"]');
  // The box holds the answer span and, after it, the answer's date: the answer is its first child.
  const answer = box ? nodeText(box.children.find(isTag)) || nodeText(box) : '';
  const heading = page.first(pair, 'a[href] h3');
  const a = heading && page.closest(heading, 'a');
  let url: string | null = null;
  if (a) url = resolveHref(attrOf(a, 'href'));
  if (!url) {
    const other = page
      .find(pair, 'a[href]')
      .map((e) => resolveHref(attrOf(e, 'href')))
      .find((u) => u && !isGoogleUtilityLink(u));
    url = other ?? null;
  }
  return { answer, title: nodeText(heading), url };
}
