// Conformance of parseSearchPage against the real Google pages in the shared fixtures (../shared/fixtures/serp).
// Pages with *.expected.json are checked against the source project's values, mapped to our field names (below);
// pages without are checked for plausible core fields. Every page is also parsed a second time with all its class
// attributes removed and must give the same result (class names are a last-resort layer, never the only one). Every check is counted per field and the pass rates are
// printed as a table at the end (the README quotes it). A check we knowingly fail must be listed in KNOWN_GAPS with
// the reason; any other failure fails the page's test.
//
// How each source maps (see the files' `_about` and SOURCES.md):
// - zlurad/serp-parser (transcribed jest assertions on its Serp model):
//   organic[i].title|url|snippet|domain -> results[i].title|link|snippet|domain; organic length -> results length;
//   organic[i].sitelinks[j].title|href -> the result's sitelinks, inline then table, [j].title|link (type "INLINE" ->
//   the item is in `inline`); "not to have organic[i].sitelinks" -> both lists empty; relatedKeywords[i].keyword ->
//   relatedSearches[i].query compared case-insensitively (we return the link's q parameter, e.g. "Google map"; the
//   page shows it lower-cased, "google map"); relatedKeywords[i].path -> the same query taken from that path's q;
//   topStories[i].title|url|publisher|published -> topStories[i].title|link|source|date; locals[i].name|rating|
//   reviews|type|address -> localResults[i].title|rating|reviews|type|address (numbers compared as numbers);
//   "adwords undefined" -> no `ads`; "topStories/locals defined" -> the list is present; "error: No results page" ->
//   an empty result, not an error. Ambiguous or unmapped, hence not counted: totalResults, timeTaken, pagination,
//   currentPage, keyword, organic[i].featured, videos, shopResults, hotels, trailersAndClips, thumbnailGroups,
//   locals[i].expensiveness. Assertions under a `describe` named "Testing optional module/feature parsing" ran
//   against a different (empty) page in that repo, and `skipped_in_repo` ones were test.skip there: both ignored.
// - apify google-search-scraper (verbatim expected JSON): organicResults[i].title|url|displayedUrl|description ->
//   results[i].title|link|displayLink|snippet; relatedQueries[i].title -> relatedSearches[i].query;
//   paidResults[i].title|url|displayedUrl|description -> ads[i].title|link|displayLink|snippet. Its organic
//   `siteLinks` are [] for every result although the page shows inline sitelinks (the 2020 ".osl" row) that its
//   extractor did not read: an empty expected list is not checked, a non-empty one is. resultsTotal, paidProducts,
//   ad sitelinks: not in our contract.
// - WebSearcher (verbatim component list): `general` components, in order -> results[i].title|link, cite ->
//   displayLink, text -> snippet (WebSearcher keeps the date in the text, "Nov 25, 2021 — …": compared after taking
//   our `date` prefix off; it also joins the pieces around <em> with a space, "abortion ." where the page renders
//   "abortion.": spaces before punctuation are dropped on both sides); `local_results` -> localResults[i].title; `searches_related` details[].text ->
//   relatedSearches[].query (case-insensitive); `people_also_ask` -> peopleAlsoAsk non-empty (it records no
//   questions); `knowledge` with subtype panel_rhs -> knowledgePanel.description and .source.link (the other
//   `knowledge` component of that page is the same panel flattened with the PAA heading: not counted);
//   `top_stories` url -> topStories[i].link; `ad` title -> ads[i].title. `videos`/`perspectives`: not ours.
// - SOURCES.md "Contents" lines give a few facts for pages with no expected file (or fields the file lacks); they
//   are checked as `sources-md` facts: knowledge panel titles, "no knowledge panel", PAA/AI overview presence, and
//   openserp's own test (>= 2 distinct organic titles, one AI overview of >= 200 characters with links).
import { afterAll, describe, expect, it } from '@jest/globals';
import type { WebResultItem, WebSearchResult } from '@trawl/contracts';
import { TrawlError } from '@trawl/contracts';
import { fixturesAvailable, listFixtures, readExpected, readFixture } from '../../testing/fixtures.reader.js';
import { parseSearchPage } from './index.js';

interface Check {
  page: string;
  field: string;
  what: string;
  pass: boolean;
  detail: string;
}

/** Checks we knowingly fail, by `page :: what`, with the reason. Empty when everything passes. */
const KNOWN_GAPS: Record<string, string> = {};

const checks: Check[] = [];

const norm = (s: unknown): string =>
  String(s ?? '')
    .replace(/[\u00a0\s]+/g, ' ')
    .replace(/\s*…$/, '...')
    .trim();
/** WebSearcher joins text nodes with spaces ("includes abortion ."): drop spaces before punctuation. */
const tight = (s: unknown): string => norm(s).replace(/\s+([.,;:!?"')\]])/g, '$1');
const lower = (s: unknown): string => norm(s).toLowerCase();
const qOf = (path: string): string => new URL(path, 'https://www.google.com').searchParams.get('q') ?? '';
const sitelinksOf = (r: WebResultItem | undefined) => (r ? [...r.sitelinks.inline, ...r.sitelinks.table] : []);

function check(page: string, field: string, what: string, actual: unknown, expected: unknown, pass?: boolean): void {
  const ok = pass ?? JSON.stringify(actual) === JSON.stringify(expected);
  checks.push({
    page,
    field,
    what,
    pass: ok,
    detail: ok ? '' : `expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`,
  });
}

// ---- zlurad/serp-parser ---------------------------------------------------------------------------------------

interface ZluradAssertion {
  subject: string;
  matcher: string;
  negated?: boolean;
  args?: unknown[] | null;
  describe?: string;
  skipped_in_repo?: boolean;
}

function checkZlurad(page: string, r: WebSearchResult, exp: { assertions: ZluradAssertion[] }): void {
  for (const a of exp.assertions) {
    if (a.skipped_in_repo || !a.args || /optional (module|feature) parsing/i.test(a.describe ?? '')) continue;
    // Normalise `serp.x[1].y` subjects and toHaveProperty paths into one path array plus an expected value.
    let path: (string | number)[];
    let expected: unknown;
    let hasExpected = true;
    if (a.matcher === 'toHaveProperty') {
      path = (a.args[0] as (string | number)[]).map((p) => (/^\d+$/.test(String(p)) ? Number(p) : p));
      hasExpected = a.args.length > 1;
      expected = a.args[1];
    } else {
      path = a.subject
        .replace(/^serp\.?/, '')
        .split(/[.[\]]+/)
        .filter(Boolean)
        .map((p) => (/^\d+$/.test(p) ? Number(p) : p));
      expected = a.args[0];
    }
    const what = `${a.negated ? 'not ' : ''}${path.join('.')} ${a.matcher} ${JSON.stringify(expected ?? '')}`.trim();
    const [head, i, sub, j, leaf] = path as [string, number, string, number, string];

    if (head === 'organic') {
      const res = r.results[i];
      if (path.length === 0 || i === undefined) {
        if (a.matcher === 'toHaveLength') check(page, 'results.count', what, r.results.length, expected);
      } else if (sub === 'sitelinks') {
        const links = sitelinksOf(res);
        if (a.negated) check(page, 'results.sitelinks', what, links.length, 0);
        else if (leaf === 'title')
          check(
            page,
            'results.sitelinks',
            what,
            links[j]?.title,
            expected,
            hasExpected ? undefined : !!links[j]?.title,
          );
        else if (leaf === 'href') check(page, 'results.sitelinks', what, links[j]?.link, expected);
        else if (leaf === 'type')
          check(
            page,
            'results.sitelinks',
            what,
            res?.sitelinks.inline.includes(links[j]) ? 'INLINE' : 'TABLE',
            expected,
          );
      } else if (sub === 'title') check(page, 'results.title', what, res?.title, expected);
      else if (sub === 'url') check(page, 'results.link', what, res?.link, expected);
      else if (sub === 'snippet') check(page, 'results.snippet', what, norm(res?.snippet), norm(expected));
      else if (sub === 'domain') check(page, 'results.domain', what, res?.domain, expected);
      continue; // organic[i].featured: no field of ours
    }
    if (head === 'relatedKeywords') {
      if (i === undefined) check(page, 'relatedSearches', what, r.relatedSearches.length, expected);
      else if (sub === 'keyword')
        check(page, 'relatedSearches', what, lower(r.relatedSearches[i]?.query), lower(expected));
      else if (sub === 'path')
        check(page, 'relatedSearches', what, lower(r.relatedSearches[i]?.query), lower(qOf(String(expected))));
      continue;
    }
    if (head === 'topStories') {
      if (a.matcher === 'toBeDefined') check(page, 'topStories', what, !!r.topStories?.length, true);
      else {
        const s = r.topStories?.[i];
        const field = { title: s?.title, url: s?.link, publisher: s?.source, published: s?.date }[sub];
        check(page, 'topStories', what, field, expected);
      }
      continue;
    }
    if (head === 'locals') {
      if (a.matcher === 'toBeDefined') check(page, 'localResults', what, !!r.localResults?.length, true);
      else if (a.matcher === 'toBeUndefined')
        check(page, 'localResults', what, r.localResults, undefined, r.localResults === undefined);
      else {
        const l = r.localResults?.[i];
        const map: Record<string, unknown> = {
          name: l?.title,
          rating: l?.rating,
          reviews: l?.reviews,
          type: l?.type,
          address: l?.address,
        };
        if (!(sub in map)) continue; // expensiveness
        const numeric = sub === 'rating' || sub === 'reviews';
        check(page, 'localResults', what, map[sub], numeric ? Number(expected) : expected);
      }
      continue;
    }
    if (head === 'adwords' && a.matcher === 'toBeUndefined') {
      check(page, 'ads', what, r.ads, undefined, r.ads === undefined);
      continue;
    }
    if (head === 'error' && expected === 'No results page') {
      check(page, 'results.count', 'no-results page gives an empty result', r.results.length, 0);
    }
    // totalResults, timeTaken, pagination, keyword, currentPage, videos, shopResults, trailersAndClips,
    // thumbnailGroups: not part of our contract.
  }
}

// ---- apify ----------------------------------------------------------------------------------------------------

interface ApifyExpected {
  organicResults: {
    title: string;
    url: string;
    displayedUrl: string;
    description: string;
    siteLinks: { title: string }[];
  }[];
  relatedQueries: { title: string }[];
  paidResults: { title: string; url: string; displayedUrl: string; description: string }[];
}

function checkApify(page: string, r: WebSearchResult, exp: ApifyExpected): void {
  check(page, 'results.count', 'organicResults length', r.results.length, exp.organicResults.length);
  exp.organicResults.forEach((o, i) => {
    const res = r.results[i];
    check(page, 'results.title', `organic[${i}].title`, res?.title, o.title);
    check(page, 'results.link', `organic[${i}].url`, res?.link, o.url);
    check(page, 'results.displayLink', `organic[${i}].displayedUrl`, norm(res?.displayLink), norm(o.displayedUrl));
    check(page, 'results.snippet', `organic[${i}].description`, norm(res?.snippet), norm(o.description));
    if (o.siteLinks.length) {
      check(
        page,
        'results.sitelinks',
        `organic[${i}].siteLinks`,
        sitelinksOf(res).map((s) => s.title),
        o.siteLinks.map((s) => s.title),
      );
    }
  });
  check(page, 'relatedSearches', 'relatedQueries length', r.relatedSearches.length, exp.relatedQueries.length);
  exp.relatedQueries.forEach((q, i) =>
    check(page, 'relatedSearches', `relatedQueries[${i}]`, lower(r.relatedSearches[i]?.query), lower(q.title)),
  );
  check(page, 'ads', 'paidResults length', r.ads?.length ?? 0, exp.paidResults.length);
  exp.paidResults.forEach((p, i) => {
    const ad = r.ads?.[i];
    check(page, 'ads', `paid[${i}].title`, ad?.title, p.title);
    check(page, 'ads', `paid[${i}].url`, ad?.link, p.url);
    check(page, 'ads', `paid[${i}].displayedUrl`, norm(ad?.displayLink), norm(p.displayedUrl));
    check(page, 'ads', `paid[${i}].description`, norm(ad?.snippet), norm(p.description));
  });
}

// ---- WebSearcher ----------------------------------------------------------------------------------------------

interface WsComponent {
  type: string;
  subtype?: string;
  title?: string | null;
  url?: string | null;
  cite?: string | null;
  text?: string | null;
  details?: unknown;
}

function checkWebSearcher(page: string, r: WebSearchResult, exp: WsComponent[]): void {
  const general = exp.filter((c) => c.type === 'general');
  check(page, 'results.count', 'general components', r.results.length, general.length);
  general.forEach((g, i) => {
    const res = r.results[i];
    check(page, 'results.title', `general[${i}].title`, res?.title, g.title);
    check(page, 'results.link', `general[${i}].url`, res?.link, g.url);
    check(page, 'results.displayLink', `general[${i}].cite`, norm(res?.displayLink), norm(g.cite));
    const text = tight(g.text);
    const withoutDate = res?.date ? tight(text.replace(/^.*?—\s*/, '')) : text;
    check(page, 'results.snippet', `general[${i}].text`, tight(res?.snippet), withoutDate);
  });
  const locals = exp.filter((c) => c.type === 'local_results');
  locals.forEach((l, i) => check(page, 'localResults', `local[${i}].title`, r.localResults?.[i]?.title, l.title));
  const related = exp.find((c) => c.type === 'searches_related');
  if (related && Array.isArray(related.details)) {
    const texts = (related.details as { text: string }[]).map((d) => lower(d.text));
    check(
      page,
      'relatedSearches',
      'searches_related texts',
      r.relatedSearches.map((s) => lower(s.query)),
      texts,
    );
  }
  if (exp.some((c) => c.type === 'people_also_ask'))
    check(page, 'peopleAlsoAsk', 'people_also_ask present', r.peopleAlsoAsk.length > 0, true);
  const panel = exp.find((c) => c.type === 'knowledge' && c.subtype === 'panel_rhs');
  if (panel) {
    check(page, 'knowledgePanel', 'panel description', norm(r.knowledgePanel?.description), norm(panel.text));
    check(page, 'knowledgePanel', 'panel source link', r.knowledgePanel?.source?.link, panel.url);
  }
  exp
    .filter((c) => c.type === 'top_stories')
    .forEach((s, i) => check(page, 'topStories', `top_stories[${i}].url`, r.topStories?.[i]?.link, s.url));
  exp
    .filter((c) => c.type === 'ad')
    .forEach((ad, i) => check(page, 'ads', `ad[${i}].title`, r.ads?.[i]?.title, ad.title));
}

// ---- facts from SOURCES.md, and core plausibility ------------------------------------------------------------

const SOURCES_MD_FACTS: Record<string, (page: string, r: WebSearchResult) => void> = {
  'serp-zlurad-2023-google': (p, r) => {
    check(p, 'knowledgePanel', 'sources-md: knowledge panel for Google', r.knowledgePanel?.title, 'Google');
    check(p, 'peopleAlsoAsk', 'sources-md: PAA present', r.peopleAlsoAsk.length > 0, true);
  },
  'serp-zlurad-2023-matrix': (p, r) => {
    check(p, 'knowledgePanel', 'sources-md: movie knowledge panel', r.knowledgePanel?.title, 'The Matrix');
    check(p, 'peopleAlsoAsk', 'sources-md: PAA present', r.peopleAlsoAsk.length > 0, true);
  },
  'serp-zlurad-2023-coffee': (p, r) => {
    check(p, 'knowledgePanel', 'sources-md: knowledge panel', r.knowledgePanel?.title, 'Coffee');
    check(p, 'peopleAlsoAsk', 'sources-md: PAA present', r.peopleAlsoAsk.length > 0, true);
  },
  'serp-zlurad-2021-coffee': (p, r) => {
    check(p, 'knowledgePanel', 'sources-md: knowledge panel', r.knowledgePanel?.title, 'Coffee');
    check(p, 'peopleAlsoAsk', 'sources-md: PAA present', r.peopleAlsoAsk.length > 0, true);
    check(p, 'localResults', 'sources-md: local pack', (r.localResults?.length ?? 0) > 0, true);
  },
  'serp-websearcher-2023-abortion-rich': (p, r) => {
    check(p, 'ads', 'sources-md: no ads', r.ads, undefined, r.ads === undefined);
    check(p, 'localResults', 'sources-md: local pack (3)', r.localResults?.length, 3);
  },
  'serp-zlurad-2023-featured-snippet': (p, r) =>
    check(p, 'peopleAlsoAsk', 'sources-md: PAA present', r.peopleAlsoAsk.length > 0, true),
  'serp-websearcher-2023-abortion-near-me-local': (p, r) => {
    check(p, 'knowledgePanel', 'sources-md: no knowledge panel', r.knowledgePanel, null);
    check(p, 'peopleAlsoAsk', 'sources-md: no PAA', r.peopleAlsoAsk.length, 0);
  },
  'serp-deepresearch-2025-ai-tools-ptbr': (p, r) => {
    check(p, 'peopleAlsoAsk', 'sources-md: PAA present', r.peopleAlsoAsk.length > 0, true);
    check(p, 'aiOverview', 'sources-md: AI overview present', (r.aiOverview?.text.length ?? 0) > 0, true);
    check(p, 'location', 'sources-md: pt-BR page', r.location.htmlLang, 'pt-BR');
  },
  'serp-openserp-2026-fetch-js-de': (p, r) => {
    check(
      p,
      'results.title',
      'openserp: >= 2 distinct organic titles',
      new Set(r.results.map((x) => x.title)).size >= 2,
      true,
    );
    check(p, 'aiOverview', 'openserp: AI overview >= 200 chars', (r.aiOverview?.text.length ?? 0) >= 200, true);
    check(p, 'aiOverview', 'openserp: AI overview has links', (r.aiOverview?.sources.length ?? 0) > 0, true);
  },
};

function checkCore(page: string, r: WebSearchResult, expectResults: boolean): void {
  if (expectResults) check(page, 'core', 'has organic results', r.results.length > 0, true);
  r.results.forEach((x, i) => {
    check(page, 'core', `results[${i}] title non-empty`, x.title.length > 0, true);
    check(page, 'core', `results[${i}] link is http(s)`, /^https?:\/\/\S+$/.test(x.link), true);
    check(page, 'core', `results[${i}] domain/displayLink/source set`, !!(x.domain && x.displayLink && x.source), true);
    check(page, 'core', `results[${i}] realPosition`, x.realPosition, i + 1);
  });
  check(page, 'location', 'htmlLang set', r.location.htmlLang.length > 0, true);
}

// ---- the suite ------------------------------------------------------------------------------------------------

const available = fixturesAvailable('serp');
const pages = available ? listFixtures('serp', '.html') : [];

(available ? describe : describe.skip)('parseSearchPage conformance (shared real Google pages)', () => {
  for (const file of pages) {
    const base = file.replace(/\.html$/, '');
    it(`${base}: matches the source project's expectations and core plausibility`, () => {
      const html = readFixture('serp', file);
      if (/captcha/.test(base)) {
        let err: unknown;
        try {
          parseSearchPage(html);
        } catch (e) {
          err = e;
        }
        check(
          base,
          'blocked',
          'captcha page -> UPSTREAM_BLOCKED',
          err instanceof TrawlError ? err.code : String(err),
          'UPSTREAM_BLOCKED',
        );
      } else {
        const r = parseSearchPage(html);
        const exp = readExpected('serp', base);
        if (base.includes('zlurad') && exp) checkZlurad(base, r, exp as { assertions: ZluradAssertion[] });
        else if (base.includes('apify') && exp) checkApify(base, r, exp as ApifyExpected);
        else if (base.includes('websearcher') && exp) checkWebSearcher(base, r, exp as WsComponent[]);
        SOURCES_MD_FACTS[base]?.(base, r);
        checkCore(base, r, !/no-results/.test(base));
        // Layering: obfuscated class names are only a fallback, so the page must read the same without any.
        const classless = parseSearchPage(html.replace(/\sclass="[^"]*"/g, ''));
        check(
          base,
          'class-independence',
          'same result with every class attribute removed',
          JSON.stringify(classless) === JSON.stringify(r),
          true,
        );
      }
      const unexpected = checks.filter((c) => c.page === base && !c.pass && !(`${c.page} :: ${c.what}` in KNOWN_GAPS));
      expect(unexpected.map((c) => `${c.field} | ${c.what} | ${c.detail}`)).toEqual([]);
    });
  }

  afterAll(() => {
    if (checks.length === 0) return;
    const byField = new Map<string, { pass: number; total: number }>();
    for (const c of checks) {
      const f = byField.get(c.field) ?? { pass: 0, total: 0 };
      f.total += 1;
      if (c.pass) f.pass += 1;
      byField.set(c.field, f);
    }
    const rows = [...byField.entries()].sort(([a], [b]) => a.localeCompare(b));
    const all = checks.filter((c) => c.pass).length;
    const lines = [
      `serp conformance: ${pages.length} pages, ${checks.length} checks, ${all} passed (${((100 * all) / checks.length).toFixed(1)}%)`,
      '| field | passed | checks | rate |',
      '|---|---:|---:|---:|',
      ...rows.map(([f, { pass, total }]) => `| ${f} | ${pass} | ${total} | ${((100 * pass) / total).toFixed(1)}% |`),
    ];
    const failed = checks.filter((c) => !c.pass);
    if (failed.length)
      lines.push('', 'failed checks:', ...failed.map((c) => `- ${c.page} | ${c.field} | ${c.what} | ${c.detail}`));
    console.log(lines.join('\n'));
  });
});
