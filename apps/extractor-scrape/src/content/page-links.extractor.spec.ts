import { describe, expect, it } from '@jest/globals';
import { parseDocument } from 'htmlparser2';
import { pageLinks } from './page-links.extractor.js';

describe('pageLinks', () => {
  it('returns every link once, absolute, in page order, http(s), mailto and tel only', () => {
    const html = `<nav><a href="/b">B</a><a href="https://other.test/x">X</a></nav>
      <main><a href="c?q=1#top">C</a><a href="/b">B again</a><a href="javascript:void(0)">js</a><a>no href</a>
      <a href="mailto:hi@example.com">mail</a><a href="tel:+441234">tel</a><a href="data:text/html,hi">data</a>
      <map><area href="/area" alt="area"></map><a href="http://[bad">bad</a><a href="  /spaced  ">s</a></main>`;
    expect(pageLinks(parseDocument(html), 'https://example.com/dir/page')).toEqual([
      'https://example.com/b',
      'https://other.test/x',
      'https://example.com/dir/c?q=1#top',
      'mailto:hi@example.com',
      'tel:+441234',
      'https://example.com/area',
      'https://example.com/spaced',
    ]);
  });

  it("resolves against the document's <base href>", () => {
    const html = '<head><base href="https://cdn.example.net/docs/"></head><a href="intro">i</a>';
    expect(pageLinks(parseDocument(html), 'https://example.com/')).toEqual(['https://cdn.example.net/docs/intro']);
  });
});
