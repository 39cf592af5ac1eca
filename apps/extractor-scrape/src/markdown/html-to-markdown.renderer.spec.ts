import { describe, expect, it } from '@jest/globals';
import { HtmlToMarkdown } from './html-to-markdown.renderer.js';

describe('HtmlToMarkdown', () => {
  const md = new HtmlToMarkdown();

  it('turns headings, paragraphs, links and lists into Markdown', () => {
    const out = md.convert(
      '<h1>Title</h1><p>Some <a href="https://a.test/x">link</a>.</p><ul><li>one</li><li>two</li></ul>',
    );
    expect(out).toContain('# Title');
    expect(out).toContain('[link](https://a.test/x)');
    expect(out).toMatch(/-\s+one/);
  });

  it('writes emphasis with asterisks, so that a word in emphasis reads as the word to a word-based reader', () => {
    const out = md.convert('<p><em>Eat 60–90 minutes before</em> your <i>workout</i>, <strong>twice</strong>.</p>');
    expect(out).toBe('*Eat 60–90 minutes before* your *workout*, **twice**.');
    expect(out.match(/[\p{L}\p{N}_]+/gu)).toEqual(['Eat', '60', '90', 'minutes', 'before', 'your', 'workout', 'twice']);
  });

  it('leaves an underscore inside a word as written, and escapes one that could open emphasis', () => {
    expect(md.convert('<p>Call snake_case_name on dp3_1_en.png</p>')).toBe('Call snake_case_name on dp3_1_en.png');
    expect(md.convert('<p>_not emphasis_ and 2 * 3</p>')).toBe('\\_not emphasis\\_ and 2 \\* 3');
  });

  it('drops scripts and styles', () => {
    const out = md.convert('<style>p{color:red}</style><p>kept</p><script>var secret = 1</script>');
    expect(out).toBe('kept');
  });

  it('leaves the document head, title included, out of the Markdown', () => {
    const out = md.convert(
      '<!doctype html><html><head><title>Page title</title><meta name="x" content="y"></head><body><h1>Body heading</h1><p>text</p></body></html>',
    );
    expect(out).not.toContain('Page title');
    expect(out.startsWith('# Body heading')).toBe(true);
  });
});
