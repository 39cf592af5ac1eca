// "Related searches": links to another results page (/search?q=...) for a different query, carrying no vertical,
// filter, entity or paging parameter (those are tabs, tools, knowledge-panel entities, pagination), and not inside
// "people also ask", ads or a result. The query is the link's q parameter (its text may split words: "Fetch<b>mode</b>").
import type { CheerioAPI } from 'cheerio';
import { AD_REGIONS, AI_OVERVIEW_REGIONS, PAA_REGIONS } from './serp-regions.constants.js';
import { attrOf, clean, isGoogleHost } from './serp-dom.util.js';
import { pageQuery } from '../scan/page-query.util.js';

const NOT_RELATED_PARAMS = [
  'tbm',
  'tbs',
  'udm',
  'si',
  'stick',
  'start',
  'story',
  'tbo',
  'source',
  'lr',
  'cr',
  'ictx',
  'fbs',
  'spell',
  'ibp',
  'lsig',
  'kgmid',
  'rlst',
  'rldimm',
  'ludocid',
  'lqi',
  'stq',
  'uule',
  'cd',
  'ct',
  'fcs',
  'tbnid',
  'vet',
  'prmd',
  'filter',
  'sqi',
  'rflfq',
  'rlha',
  'ser',
  'ibp',
  'htichips',
  'htivrt',
  'shndl',
  'shem',
  'csui',
  'uds',
  'chips',
];

/** Where a link to another results page is something else (a question, an ad, a result's title, a spelling fix). */
const NOT_RELATED_CONTEXT = `${PAA_REGIONS}, ${AD_REGIONS}, ${AI_OVERVIEW_REGIONS}, [data-hveid] h3, #topstuff, #taw, cite`;

function normaliseQuery(q: string): string {
  return clean(q.replace(/["“”]/g, '')).toLowerCase();
}

/**
 * `exclude` holds queries that are something else on the page (the "people also ask" questions, which link to
 * their own results page in some layouts).
 */
export function readRelatedSearches(
  $: CheerioAPI,
  currentQuery: string,
  exclude: readonly string[] = [],
): { query: string }[] {
  const current = normaliseQuery(currentQuery);
  const excluded = new Set(exclude.map(normaliseQuery));
  const out: { query: string }[] = [];
  const seen = new Set<string>();
  const query = pageQuery($);
  for (const a of query.find(query.root, 'a[href]')) {
    const href = attrOf(a, 'href') ?? '';
    if (!href.includes('/search?')) continue;
    let u: URL;
    try {
      u = new URL(href, 'https://www.google.com');
    } catch {
      continue;
    }
    if (!isGoogleHost(u.hostname) || u.pathname !== '/search') continue;
    const q = clean(u.searchParams.get('q') ?? '');
    if (!q || /^(cache|related|site|info):/i.test(q)) continue;
    if (NOT_RELATED_PARAMS.some((p) => u.searchParams.has(p))) continue;
    const norm = normaliseQuery(q);
    if (norm === current || seen.has(norm) || excluded.has(norm)) continue;
    if (query.within(a, NOT_RELATED_CONTEXT)) continue;
    seen.add(norm);
    out.push({ query: q });
  }
  return out;
}
