// Layout variants of results pages that real 2025-2026 pages showed and the parser used to miss.
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { parseSearchPage } from './search-page.parser.js';

const fixture = (name: string): string => readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8');

describe('parseSearchPage on 2025-2026 layout variants', () => {
  const page = parseSearchPage(fixture('serp-video-paa-variants.html'));

  it('keeps a video result standing in the main results column, in page order, and leaves a video carousel out', () => {
    expect(page.results.map((r) => r.link)).toEqual([
      'https://developer.mozilla.org/en-US/docs/Web/API/Fetch_API',
      'https://www.youtube.com/watch?v=37vxWr0WgQk',
      'https://javascript.info/fetch',
    ]);
    expect(page.results[1]).toMatchObject({
      title: 'How to FETCH data from an API using JavaScript',
      realPosition: 2,
      snippet: expect.stringContaining('async and await'),
    });
  });

  it('never lists the search query itself as a "people also ask" question', () => {
    expect(page.peopleAlsoAsk.map((p) => p.question)).toEqual([
      'What is the fetch API in JavaScript?',
      'Is fetch better than Axios?',
    ]);
  });
});
