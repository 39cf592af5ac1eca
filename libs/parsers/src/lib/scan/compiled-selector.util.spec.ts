// The loaded document's selection methods run compiled selectors: every answer must be cheerio's own, element for
// element and in order, on the same tree (plain cheerio over the same htmlparser2 document is the reference).
import { describe, expect, it } from '@jest/globals';
import { load, type Cheerio, type CheerioAPI } from 'cheerio';
import type { AnyNode } from 'domhandler';
import { compiledSelector } from './compiled-selector.util.js';
import { loadPageDom } from './page-dom.factory.js';

const PAGE = `<html lang="en"><head><title>T</title></head><body>
<div id="main" role="main" data-hveid="1">
  <div class="g" data-hveid="2"><a href="/url?q=https://a.example/"><h3>A</h3><cite>a.example</cite></a>
    <div data-sncf="1"><span>Nov 1, 2021 —</span> text <em>w</em> <b>x</b></div>
    <table><tr><td><a href="https://a.example/x">x</a></td></tr></table></div>
  <div class="g" data-hveid="3"><a href="https://b.example/"><h3>B</h3></a>
    <div role="heading" aria-level="3"><span>heading</span></div><input name="q" type="hidden" value="h"></div>
  <g-section-with-header><a href="https://c.example/"><div role="heading">C</div></a></g-section-with-header>
  <div data-q="question" data-lk="1"><div aria-expanded="false" role="button">Q?</div>
    <a href="https://d.example/"><h3>D</h3></a></div>
  <textarea name="q">query</textarea><input name="q" value="v">
  <div style="display:none"><p><span>hidden</span></p></div>
</div>
<div id="rhs"><div data-attrid="title"><span role="heading">KP</span></div><g-img><img src="x.png"></g-img></div>
</body></html>`;

const SELECTORS = [
  'h3',
  'a[href]',
  'a[href] h3',
  'div > a',
  '[data-hveid]',
  '[data-hveid] h3',
  '#main h3',
  'body td',
  '[role="heading"][aria-level="3"]',
  'textarea[name="q"], input[name="q"]:not([type="hidden"])',
  'cite, h3, [role="heading"]',
  '#main, #rhs, body, html',
  '[data-sncf="1"]',
  '[style*="display"]',
  'g-section-with-header a[href], [data-q] a[href]',
  '[data-attrid="title"] [role="heading"], g-img img',
  'div, span, p',
  'td',
  'em, b',
  '*',
];

type Sel = Cheerio<AnyNode>;
/** The same calls on both documents: element positions in document order, so the two trees compare. */
function answers($: CheerioAPI, selector: string): unknown[] {
  const all = $('*').toArray();
  const pos = (s: Sel): number[] => s.toArray().map((e) => all.indexOf(e as (typeof all)[number]));
  const starts: Sel[] = [$.root() as unknown as Sel, $('body'), $('#main'), $('.g'), $('a[href]'), $('span'), $('td')];
  return starts.flatMap((s) => [
    pos(s.find(selector)),
    s.is(selector),
    pos(s.closest(selector)),
    pos(s.filter(selector)),
    pos(s.children(selector)),
    pos(s.parents(selector)),
    pos(s.find(selector).first()),
  ]);
}

describe('compiled selectors', () => {
  const reference = load(PAGE, { xml: { xmlMode: false, decodeEntities: true } });
  const loaded = loadPageDom(PAGE);

  it.each(SELECTORS)('answer as cheerio does for %s', (selector) => {
    expect(answers(loaded, selector)).toEqual(answers(reference, selector));
  });

  it('answer as cheerio does after elements are removed, and after the tree is changed otherwise', () => {
    const ref = load(PAGE, { xml: { xmlMode: false, decodeEntities: true } });
    const ours = loadPageDom(PAGE);
    for (const $ of [ref, ours]) {
      expect($('h3').length).toBeGreaterThan(0); // the element order is built before the removals
      $('div').remove('[data-sncf], [style]');
      $('cite, table').remove();
    }
    for (const selector of SELECTORS) expect(answers(ours, selector)).toEqual(answers(ref, selector));
    for (const $ of [ref, ours]) $('#rhs').append('<div data-hveid="9"><h3>E</h3><span>e</span></div>');
    for (const selector of SELECTORS) expect(answers(ours, selector)).toEqual(answers(ref, selector));
  });

  it('compile once the selectors that mean the same from any start, and leave the others to cheerio', () => {
    expect(compiledSelector('a[href] h3')).toBe(compiledSelector('a[href] h3'));
    expect(compiledSelector('a[href] h3')?.traverses).toBe(true);
    expect(compiledSelector('[data-q], h3')?.traverses).toBe(false);
    for (const contextual of ['h3:first', 'div:eq(1)', '> a', '+ div', ':scope a', 'a:has(h3)', 'div ~ p', '']) {
      expect(compiledSelector(contextual)).toBeNull();
    }
  });

  it('answer positional and relative selectors through cheerio', () => {
    for (const selector of ['h3:first', 'div:eq(2)', '> a', 'a:has(h3)']) {
      const a = loaded('body').find(selector).length;
      const b = reference('body').find(selector).length;
      expect(a).toBe(b);
    }
    expect(loaded('#main').find('> div').length).toBeGreaterThan(0);
  });
});
