import { describe, expect, it } from '@jest/globals';
import type { WebResultItem, WebSearchRequestDto, WebSearchResult } from '@trawl/contracts';
import { Deadline, ParseWorkPool, UpstreamPageSource, type UpstreamFetcher } from '@trawl/upstream';
import { WebSearchService } from './web-search.service.js';

/** Parses on the event loop (the pool's threads are tested in libs/upstream). */
const INLINE = new ParseWorkPool({ threads: 1, budgetMs: 10_000, inlineBelowChars: Number.MAX_SAFE_INTEGER });

const item = (link: string): WebResultItem => ({
  date: '',
  displayLink: 'x',
  domain: 'x',
  favicon: '',
  link,
  realPosition: 0,
  sitelinks: { inline: [], table: [] },
  snippet: '',
  snippetHighlightedWords: [],
  source: 'x',
  title: link,
});

/** A fetcher stand-in that answers each page URL from `pages` (keyed by `start`) and records what was asked. */
function fakeFetcher(pages: Record<number, string[]>) {
  const asked: URL[] = [];
  const headers: (Record<string, string> | undefined)[] = [];
  const deadlines = new Set<Deadline>();
  const fetcher = {
    deadline: (ms: number) => new Deadline(ms),
    fetchParsed: (url: string, options: { deadline?: Deadline; headers?: Record<string, string> }) => {
      headers.push(options.headers);
      const u = new URL(url);
      asked.push(u);
      if (options.deadline) deadlines.add(options.deadline);
      const start = Number(u.searchParams.get('start') ?? 0);
      const result: WebSearchResult = {
        knowledgePanel: null,
        location: { htmlLang: 'en' },
        peopleAlsoAsk: [{ question: `q${start}`, answer: '', title: '', url: null }],
        relatedSearches: [],
        results: (pages[start] ?? []).map(item),
      };
      return Promise.resolve(result);
    },
  };
  const source = new UpstreamPageSource({
    fetcher: fetcher as unknown as UpstreamFetcher,
    defaultEngine: 'http',
    browserMemoryMs: 0,
  });
  return { fetcher: source, asked, deadlines, headers };
}

const req = (extra: Partial<WebSearchRequestDto>): WebSearchRequestDto => ({ q: 'tea', timeout: 5000, ...extra });
const links = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `https://${prefix}${i}.test/`);

describe('WebSearchService', () => {
  it('fetches one page of pageSize results when num fits in it', async () => {
    const { fetcher, asked } = fakeFetcher({ 0: links('a', 10) });
    const res = await new WebSearchService(fetcher, { baseUrl: 'http://sim.test', pageSize: 10 }, INLINE).search(
      req({ num: 7 }),
    );
    expect(asked).toHaveLength(1);
    expect(asked[0].searchParams.get('num')).toBe('10');
    expect(res.results.map((r) => r.realPosition)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it('concatenates further pages under one deadline, keeps the first page extras, drops repeated links', async () => {
    const { fetcher, asked, deadlines } = fakeFetcher({
      20: links('a', 10),
      30: [...links('a', 2), ...links('b', 8)],
      40: links('c', 10),
    });
    const res = await new WebSearchService(fetcher, { baseUrl: 'http://sim.test', pageSize: 10 }, INLINE).search(
      req({ start: 20, num: 25 }),
    );
    expect(asked.map((u) => u.searchParams.get('start'))).toEqual(['20', '30', '40']);
    expect(deadlines.size).toBe(1);
    expect(res.results).toHaveLength(25);
    expect(res.results.map((r) => r.realPosition)).toEqual(Array.from({ length: 25 }, (_, i) => 21 + i));
    expect(new Set(res.results.map((r) => r.link)).size).toBe(25);
    expect(res.peopleAlsoAsk[0].question).toBe('q20');
  });

  it("sends Google's consent cookies, so EU clients get results rather than the consent page", async () => {
    const { fetcher, headers } = fakeFetcher({ 0: links('a', 10) });
    await new WebSearchService(fetcher, { baseUrl: 'http://sim.test', pageSize: 10 }, INLINE).search(req({}));
    expect(headers[0]?.cookie).toMatch(/SOCS=/);
  });

  it('stops at a page without results', async () => {
    const { fetcher, asked } = fakeFetcher({ 0: links('a', 10) });
    const res = await new WebSearchService(fetcher, { baseUrl: 'http://sim.test', pageSize: 10 }, INLINE).search(
      req({ num: 50 }),
    );
    expect(asked).toHaveLength(2);
    expect(res.results).toHaveLength(10);
  });

  it('asks 100 results a page when the page size is 100', async () => {
    const { fetcher, asked } = fakeFetcher({ 0: links('a', 100), 100: links('b', 100) });
    const res = await new WebSearchService(fetcher, { baseUrl: 'http://sim.test', pageSize: 100 }, INLINE).search(
      req({ num: 150 }),
    );
    expect(asked.map((u) => [u.searchParams.get('start'), u.searchParams.get('num')])).toEqual([
      [null, '100'],
      ['100', '100'],
    ]);
    expect(res.results).toHaveLength(150);
  });
});
