// "Related searches": links to another results page (/search?q=...) for a different query, carrying no vertical,
// filter, entity or paging parameter (those are tabs, tools, knowledge-panel entities, pagination), and not inside
// "people also ask", ads or a result. The query is the link's q parameter (its text may split words: "Fetch<b>mode</b>").
import type { CheerioAPI } from 'cheerio';
import { AD_REGIONS, AI_OVERVIEW_REGIONS, PAA_REGIONS } from './serp-regions.constants.js';
import { clean, isGoogleHost } from './serp-dom.util.js';

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
  $('a[href]').each((_, el) => {
    const a = $(el);
    const href = a.attr('href') ?? '';
    if (!href.includes('/search?')) return;
    let u: URL;
    try {
      u = new URL(href, 'https://www.google.com');
    } catch {
      return;
    }
    if (!isGoogleHost(u.hostname) || u.pathname !== '/search') return;
    const q = clean(u.searchParams.get('q') ?? '');
    if (!q || /^(cache|related|site|info):/i.test(q)) return;
    if (NOT_RELATED_PARAMS.some((p) => u.searchParams.has(p))) return;
    const norm = normaliseQuery(q);
    if (norm === current || seen.has(norm) || excluded.has(norm)) return;
    if (
      a.closest(`${PAA_REGIONS}, ${AD_REGIONS}, ${AI_OVERVIEW_REGIONS}, [data-hveid] h3, #topstuff, #taw, cite`)
        .length > 0
    )
      return;
    seen.add(norm);
    out.push({ query: q });
  });
  return out;
}
