import TurndownService from 'turndown';

/**
 * HTML to Markdown with turndown (see docs/decisions/0003-markdown-converter.md): ATX headings, fenced code, and
 * scripts, styles, noscript, templates, inline SVG and
 * the document head (its `<title>` is page metadata, not content, as in Firecrawl's markdown) dropped. One converter instance, reused (it is stateless).
 */
export class HtmlToMarkdown {
  private readonly turndown = new TurndownService({
    headingStyle: 'atx',
    codeBlockStyle: 'fenced',
    bulletListMarker: '-',
  });

  constructor() {
    this.turndown.remove([
      'head',
      'title',
      'script',
      'style',
      'noscript',
      'template',
      'iframe',
      'svg' as keyof HTMLElementTagNameMap,
    ]);
  }

  convert(html: string): string {
    return this.turndown.turndown(html).trim();
  }
}
