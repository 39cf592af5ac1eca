import { describe, expect, it } from '@jest/globals';
import render from 'dom-serializer';
import { parseDocument } from 'htmlparser2';
import { TrawlError } from '@trawl/contracts';
import { selectTags } from './tag-selection.extractor.js';

const PAGE = `<body><header>Head</header><div class="post"><p>One</p><div class="ad">Ad</div><p class="x">Two</p></div>
<aside><p class="x">Side</p></aside><footer>Foot</footer></body>`;
const html = (include: string[], exclude: string[]) =>
  render(selectTags(parseDocument(PAGE), include, exclude).children);

describe('selectTags (includeTags / excludeTags, Firecrawl semantics)', () => {
  it('with includeTags keeps only the matching elements, each once (outermost), in page order', () => {
    expect(html(['.x', '.post'], [])).toBe(
      '<div class="post"><p>One</p><div class="ad">Ad</div><p class="x">Two</p></div><p class="x">Side</p>',
    );
  });

  it('removes what excludeTags match, after includeTags', () => {
    expect(html(['.post'], ['.ad'])).toBe('<div class="post"><p>One</p><p class="x">Two</p></div>');
    expect(html([], ['header', 'footer', 'aside', '.ad'])).toBe(
      '<body><div class="post"><p>One</p><p class="x">Two</p></div>\n</body>',
    );
  });

  it('includeTags that match nothing leave an empty page', () => {
    expect(html(['#missing'], [])).toBe('');
  });

  it('a selector that does not parse is VALIDATION_FAILED naming the field and the selector', () => {
    expect(() => html(['p:::'], [])).toThrow(TrawlError);
    try {
      html([], ['[unclosed']);
    } catch (e) {
      expect((e as TrawlError).code).toBe('VALIDATION_FAILED');
      expect((e as TrawlError).message).toContain('excludeTags: "[unclosed"');
    }
    expect.assertions(3);
  });
});
