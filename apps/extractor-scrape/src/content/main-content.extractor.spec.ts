import { describe, expect, it } from '@jest/globals';
import render from 'dom-serializer';
import { isTag } from 'domhandler';
import { parseDocument } from 'htmlparser2';
import { extractMainContent } from './main-content.extractor.js';

const sentence = (n: number) =>
  `Paragraph ${n} tells the story at length, with the details a reader came for, the names of the people involved, ` +
  `what they said and what happened next in the town hall meeting number ${n}.`;
const story = Array.from({ length: 6 }, (_, i) => `<p>${sentence(i + 1)}</p>`).join('\n');
/** Two lists beside the story, each about as long as it: our reading falls back to the page's text column. */
const list = (name: string) =>
  `<ul>${Array.from({ length: 110 }, (_, i) => `<li>${name} line ${i}</li>`).join('')}</ul>`;
const beside = `${list('Schedule')}${list('Timetable')}`;
const page = `<html><body><main>
  <div class="story">${story}
    <div class="photo"><img src="/a.jpg"><span class="caption">The town hall at night (Image: Agency)</span></div>
    <p><strong><a href="/other">ANOTHER STORY, IN CAPITALS: READ IT</a></strong></p>
    <p><strong>DON'T MISS</strong><br>${[1, 2, 3]
      .map((i) => `<a href="/more/${i}">Another long headline of the paper, number ${i}, in capitals too</a> [MORE]`)
      .join('<br>')}</p>
  </div>
  ${beside}
</main></body></html>`;

function contentText(html: string, declaredArticle: boolean): { text: string; article: boolean } {
  const { content, article } = extractMainContent(parseDocument(html), { declaredArticle });
  return { text: render(isTag(content) ? content : content.children), article };
}

describe('main content, by the kind of page', () => {
  it('a page that says it is an article loses captions and paragraphs of links where our reading fell back', () => {
    const declared = contentText(page, true);
    expect(declared.article).toBe(false); // the scored block did not hold 40 % of the landmark: the column it is
    expect(declared.text).toContain(sentence(6));
    expect(declared.text).toContain('Timetable line 109');
    expect(declared.text).not.toContain('The town hall at night');
    expect(declared.text).not.toContain('ANOTHER STORY');
    expect(declared.text).not.toContain("DON'T MISS");
  });

  it('a page that says nothing keeps its captions there (a product picture keeps its legend)', () => {
    const undeclared = contentText(page, false);
    expect(undeclared.article).toBe(false);
    expect(undeclared.text).toContain('The town hall at night');
  });

  it('an article keeps a paragraph that is one address written out (a cited source), and drops a linked headline', () => {
    const source = 'http://www.example.org/2013/02/the-minister-said-so.html#ixzz2PpyAj3AN';
    const html = `<html><body><article>${story}
      <p><a href="${source}">${source}</a></p>
      <p><a href="/other">Another story of the paper about the town hall</a></p>
    </article></body></html>`;
    const { text, article } = contentText(html, false);
    expect(article).toBe(true);
    expect(text).toContain(sentence(6));
    expect(text).toContain(`>${source}</a>`);
    expect(text).not.toContain('Another story of the paper');
  });
});
