import { describe, expect, it } from '@jest/globals';
import { buildSearchUrl, parseSearchPage } from '@trawl/parsers';
import { renderSearchPage, SIM_SEARCH_MAX_RESULTS, searchParamsFromUrl } from './search.page.js';

const BASE = 'http://127.0.0.1:4010';

/** Render the page for the URL the search extractor would build, as the simulator's route does. */
function pageFor(req: { q: string; hl?: string; gl?: string; num?: number; start?: number }): string {
  return renderSearchPage(searchParamsFromUrl(new URL(buildSearchUrl(BASE, req))));
}

describe('simulated Google web search upstream', () => {
  it('reads q, hl, gl, start and num back from the URL the extractor builds', () => {
    const url = new URL(buildSearchUrl(BASE, { q: 'solar panels', hl: 'de', gl: 'at', num: 30, start: 20 }));
    expect(searchParamsFromUrl(url)).toEqual({ q: 'solar panels', hl: 'de', gl: 'at', start: 20, num: 30 });
  });

  it('answers any query with num results that the search parser reads with every field populated', () => {
    for (const num of [10, 37, 100]) {
      const data = parseSearchPage(pageFor({ q: 'electric bikes', hl: 'en', gl: 'us', num }));
      expect(data.results).toHaveLength(num);
      data.results.forEach((r, i) => {
        expect(r.realPosition).toBe(i + 1);
        expect(r.title).not.toBe('');
        expect(r.link).toMatch(/^https:\/\/[\w.-]+\/\S+$/);
        expect(r.domain).toBe(new URL(r.link).hostname);
        expect(r.displayLink).toMatch(/^https:\/\/[\w.-]+ › /);
        expect(r.source).not.toBe('');
        expect(r.favicon).toMatch(/^data:image\/png;base64,iVBORw0KGgo/);
        expect(r.snippet.length).toBeGreaterThan(40);
        expect(r.snippetHighlightedWords).toEqual(['electric bikes']);
      });
      expect(data.results[0].sitelinks.inline).toHaveLength(4);
      expect(data.results.some((r) => r.date !== '')).toBe(true);
    }
  });

  it('has people-also-ask questions (the first one answered), related searches and the page language', () => {
    const data = parseSearchPage(pageFor({ q: 'sourdough starter', hl: 'en' }));
    expect(data.peopleAlsoAsk).toHaveLength(4);
    expect(data.peopleAlsoAsk[0]).toMatchObject({
      answer: expect.stringContaining('sourdough starter'),
      url: expect.stringMatching(/^https:/),
    });
    expect(data.relatedSearches).toHaveLength(8);
    expect(data.relatedSearches.every((s) => s.query.startsWith('sourdough starter '))).toBe(true);
    expect(data.location.htmlLang).toBe('en');
  });

  it('continues positions on later pages and leaves page-one blocks out of them', () => {
    const data = parseSearchPage(pageFor({ q: 'electric bikes', num: 10, start: 10 }), { pageOffset: 10 });
    expect(data.results.map((r) => r.realPosition)).toEqual([11, 12, 13, 14, 15, 16, 17, 18, 19, 20]);
    expect(data.peopleAlsoAsk).toEqual([]);
    expect(data.knowledgePanel).toBeNull();
    const firstPage = parseSearchPage(pageFor({ q: 'electric bikes', num: 10 }));
    expect(data.results[0].link).not.toBe(firstPage.results[0].link);
  });

  it('gives some queries a knowledge panel with every field set', () => {
    const panels = ['coffee', 'tea', 'jazz', 'chess', 'kayak', 'python', 'rust', 'violin', 'saturn', 'tango']
      .map((q) => parseSearchPage(pageFor({ q })).knowledgePanel)
      .filter((kp) => kp !== null);
    expect(panels.length).toBeGreaterThan(0);
    expect(panels.length).toBeLessThan(10);
    for (const kp of panels) {
      expect(kp.title).not.toBe('');
      expect(kp.type).not.toBe('');
      expect(kp.description).not.toBe('');
      expect(kp.source?.link).toMatch(/^https:\/\/en\.wikipedia\.org\/wiki\//);
      expect(Object.keys(kp.attributes)).toHaveLength(2);
      expect(kp.image).toMatch(/^data:image\/png;base64,/);
    }
  });

  it('is deterministic: the same request renders the same page, another query a different one', () => {
    expect(pageFor({ q: 'mountain huts', hl: 'de', num: 20 })).toBe(pageFor({ q: 'mountain huts', hl: 'de', num: 20 }));
    expect(pageFor({ q: 'mountain huts' })).not.toBe(pageFor({ q: 'valley huts' }));
  });

  it('renders a no-results page past the last result, which parses as an empty result', () => {
    const data = parseSearchPage(pageFor({ q: 'electric bikes', start: SIM_SEARCH_MAX_RESULTS }));
    expect(data.results).toEqual([]);
    expect(data.relatedSearches).toEqual([]);
  });

  it('escapes the query into the page', () => {
    const data = parseSearchPage(pageFor({ q: '<b>"tags" & quotes</b>' }));
    expect(data.results[0].snippetHighlightedWords).toEqual(['<b>"tags" & quotes</b>']);
  });
});
