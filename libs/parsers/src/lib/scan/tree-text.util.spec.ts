// treeText must give cheerio's `.text()` of the same nodes, character for character.
import { describe, expect, it } from '@jest/globals';
import { load } from 'cheerio';
import { loadPageDom } from './page-dom.factory.js';
import { treeText } from './tree-text.util.js';

const PAGE = `<html><head><title>T &amp; t</title><script>var a = "<b>";</script></head><body>
<div id="a">one <!-- not this --> <b>two</b><![CDATA[ cdata ]]><p>three<br>four</p></div>
<body><span>inner body</span></body><style>.x{}</style><textarea>area</textarea>
</body></html>`;

describe('treeText', () => {
  it.each(['body', 'html', 'div, p', '#a', 'span', 'nothing'])('gives cheerio .text() of %s', (selector) => {
    const $ = loadPageDom(PAGE);
    const reference = load(PAGE, { xml: { xmlMode: false, decodeEntities: true } });
    expect(treeText($(selector).toArray())).toBe(reference(selector).text());
    expect(treeText($(selector).toArray())).toBe($(selector).text());
  });

  it('reads text under a comment-free root and none of a comment', () => {
    const $ = loadPageDom('<p>a<!--b-->c</p>');
    expect(treeText($.root().toArray())).toBe('ac');
  });
});
