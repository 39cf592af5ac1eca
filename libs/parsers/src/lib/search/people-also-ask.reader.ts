// "People also ask". The question comes from data-q (2023+), else the expander button's text (2019+). The answer is
// only in the page when Google pre-rendered it (otherwise it loads on click): then it is the featured-snippet box
// (data-attrid="wa:/description") and the source result's <h3> link.
import type { CheerioAPI } from 'cheerio';
import type { Element } from 'domhandler';
import type { PeopleAlsoAskItem } from '@trawl/contracts';
import { AI_OVERVIEW_REGIONS } from './serp-regions.constants.js';
import { isGoogleUtilityLink, resolveHref, textOf } from './serp-dom.util.js';

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
  const items: PeopleAlsoAskItem[] = [];
  const seen = new Set<string>();
  const own = new Set(
    [
      query,
      ...$('[data-initq]')
        .map((_, e) => $(e).attr('data-initq') ?? '')
        .get(),
    ]
      .map(fold)
      .filter(Boolean),
  );
  const pairs = $('.related-question-pair, [jsname="yEVEwb"], [data-q], g-accordion-expander').toArray();
  for (const el of pairs) {
    const pair = $(el);
    if (pair.is(AI_OVERVIEW_REGIONS) || pair.closest(AI_OVERVIEW_REGIONS).length > 0) continue;
    const expander = pair.find('[aria-expanded], [role="button"], g-accordion-expander').first();
    if (!pair.is('.related-question-pair, g-accordion-expander') && expander.length === 0) continue;
    const question = questionOf(pair, expander);
    if (!question || question.length > 300 || seen.has(question.toLowerCase()) || own.has(fold(question))) continue;
    seen.add(question.toLowerCase());
    items.push({ question, ...answerOf($, pair) });
  }
  return items;
}

function questionOf(pair: ReturnType<CheerioAPI>, expander: ReturnType<CheerioAPI>): string {
  const attr = pair.attr('data-q') ?? pair.find('[data-q]').first().attr('data-q');
  if (attr && attr.trim()) return attr.trim();
  return textOf(expander.length ? expander : pair);
}

function answerOf($: CheerioAPI, pair: ReturnType<CheerioAPI>): Omit<PeopleAlsoAskItem, 'question'> {
  const box = pair.find('[data-attrid="wa:/description"], [data-attrid*="description"]').first();
  // The box holds the answer span and, after it, the answer's date: the answer is its first child.
  const answer = box.length ? textOf(box.children().first()) || textOf(box) : '';
  const heading = pair.find('a[href] h3').first();
  const a = heading.closest('a');
  let url: string | null = null;
  if (a.length) url = resolveHref(a.attr('href'));
  if (!url) {
    const other = pair
      .find('a[href]')
      .toArray()
      .map((e: Element) => resolveHref($(e).attr('href')))
      .find((u) => u && !isGoogleUtilityLink(u));
    url = other ?? null;
  }
  return { answer, title: textOf(heading), url };
}
