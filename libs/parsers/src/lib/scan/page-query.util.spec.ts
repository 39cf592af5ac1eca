// The element queries of a loaded page must answer as plain cheerio does on the same tree, element for element and in
// order, from every start element: scoped selectors (a start whose parent is an element) included.
import { describe, expect, it } from '@jest/globals';
import { load, type CheerioAPI } from 'cheerio';
import type { AnyNode } from 'domhandler';
import { loadPageDom } from './page-dom.factory.js';
import { pageQuery } from './page-query.util.js';

const PAGE = `<html lang="en"><head><title>T</title></head><body>
<div id="main" role="main" data-hveid="1">
  <div class="g" data-hveid="2"><a href="/url?q=https://a.example/"><h3>A</h3><cite>a.example</cite></a>
    <div data-sncf="1"><span>Nov 1, 2021 —</span> text <em>w</em> <b>x</b></div>
    <table><tr><td><a href="https://a.example/x">x</a></td></tr></table></div>
  <div class="g" data-hveid="3"><a href="https://b.example/"><h3>B</h3></a>
    <div role="heading" aria-level="3"><span>heading</span></div><input name="q" type="hidden" value="h"></div>
  <g-section-with-header><a href="https://c.example/"><div role="heading">C</div></a></g-section-with-header>
  <div data-q="question" data-lk="1"><div aria-expanded="false" role="button">Q?</div>
    <a href="https://d.example/"><h3>D</h3><div><a href="https://e.example/"><h3>E</h3></a></div></a></div>
  <div class="related-question-pair"><a href="https://f.example/"><span><h3>F</h3></span></a></div>
  <textarea name="q">query</textarea><input name="q" value="v">
  <div style="display:none"><p><span>hidden</span></p></div>
</div>
<div id="rhs"><div data-attrid="title"><span role="heading">KP</span></div><g-img><img src="x.png"></g-img></div>
</body></html>`;

const SELECTORS = [
  'h3',
  'a[href]',
  'a[href] h3',
  'div a[href] h3',
  'div > a',
  'div > a h3, span',
  '[data-hveid] h3',
  '#main h3',
  'g-section-with-header a[href], [data-q] a[href]',
  '[data-attrid="title"] [role="heading"], g-img img',
  'cite, h3, [role="heading"]',
  '[data-q]:not(.g) a',
  'div, span, p',
  '*',
  'a:first-child',
  '.g',
  'div.g h3, .related-question-pair a',
  '[class~="g"] [role="heading"], g-img',
  '.g:not([data-hveid="2"]) a[href]',
];

/** The answers of every query from every element, as element positions in document order. */
function answers($: CheerioAPI, ask: (node: AnyNode, selector: string) => unknown[], selector: string): unknown[] {
  const all = $('*').toArray() as AnyNode[];
  const pos = (nodes: unknown[]): unknown[] =>
    nodes.map((n) => (typeof n === 'boolean' ? n : all.indexOf(n as AnyNode)));
  return [$.root()[0], ...all].map((node) => pos(ask(node, selector)));
}

describe('page queries', () => {
  const reference = load(PAGE, { xml: { xmlMode: false, decodeEntities: true } });
  const loaded = loadPageDom(PAGE);
  const query = pageQuery(loaded);
  const cheerioAnswers = (node: AnyNode, selector: string): unknown[] => {
    const s = reference(node);
    const first = s.find(selector).first();
    const closest = s.closest(selector).toArray();
    return [...s.find(selector).toArray(), ...first.toArray(), ...closest, s.is(selector), closest.length > 0];
  };
  const queryAnswers = (node: AnyNode, selector: string): unknown[] => {
    const first = query.first(node, selector);
    const closest = query.closest(node, selector);
    return [
      ...query.find(node, selector),
      ...(first ? [first] : []),
      ...(closest ? [closest] : []),
      query.is(node, selector),
      query.within(node, selector),
    ];
  };

  it.each(SELECTORS)(
    'find, first, closest, is and within answer as cheerio does for %s from every element',
    (selector) => {
      expect(answers(loaded, queryAnswers, selector)).toEqual(answers(reference, cheerioAnswers, selector));
    },
  );

  it('find keeps to the limit, in document order', () => {
    const main = loaded('#main')[0];
    expect(query.find(main, 'a[href] h3', 2)).toEqual(loaded('#main').find('a[href] h3').toArray().slice(0, 2));
    expect(query.find(main, 'h3', 1)).toEqual([loaded('h3')[0]]);
  });

  it('within forgets its answers when an element is removed or the tree changes', () => {
    const page = loadPageDom(PAGE);
    const q = pageQuery(page);
    const span = page('[data-attrid="title"] span')[0];
    const img = page('g-img img')[0];
    expect(q.within(span, '#rhs')).toBe(true);
    expect(q.within(img, '#rhs')).toBe(true);
    page('[data-attrid="title"]').remove();
    // The removed subtree has no ancestors in the page any more; the rest answers as before.
    expect(q.within(span, '#rhs')).toBe(false);
    expect(q.within(img, '#rhs')).toBe(true);
    page('g-img').wrap('<section class="kp"></section>');
    expect(q.within(img, '.kp')).toBe(true);
    page('#rhs').append(page('section.kp'));
    page('body').prepend(page('section.kp'));
    expect(q.within(img, '#rhs')).toBe(false);
  });
});
