import TurndownService from 'turndown';

/** An attribute on one line, as turndown's own rules clean it. */
function cleanAttribute(value: string | null): string {
  return value ? value.replace(/(\n+\s*)+/g, '\n') : '';
}

/**
 * HTML to Markdown with turndown (see docs/decisions/0003-markdown-converter.md): ATX headings, fenced code, and
 * scripts, styles, noscript, templates, inline SVG and
 * the document head (its `<title>` is page metadata, not content, as in Firecrawl's markdown) dropped. Link and image
 * URLs are made absolute against the page's base when one is given (as Firecrawl's markdown has them: a reader of the
 * markdown alone can follow them). One converter instance, reused (`convert` is synchronous: its base is the call's).
 */
export class HtmlToMarkdown {
  private readonly turndown = new TurndownService({
    headingStyle: 'atx',
    codeBlockStyle: 'fenced',
    bulletListMarker: '-',
    // `*emphasis*`, not turndown's `_emphasis_`: an underscore is a word character to a word-based reader (the main
    // content benchmark's measure, search indexes), so `_Eat` and `workout_` would not read as the words they are.
    emDelimiter: '*',
  });

  /** What relative URLs resolve against during the current `convert`. */
  private base: string | undefined;

  constructor() {
    // An underscore inside a word opens no emphasis in CommonMark: it stays as written (`snake_case`, `dp3_1_en`),
    // not escaped (`snake\_case`), so that the word reads as itself. turndown's other escapes are kept.
    const escape = this.turndown.escape.bind(this.turndown);
    this.turndown.escape = (text: string) => {
      const escaped = escape(text);
      return escaped.includes('\\_') ? escaped.replace(INTRAWORD_UNDERSCORE, '_') : escaped;
    };
    // turndown's inline link and image rules, with the URL made absolute.
    this.turndown.addRule('absoluteLink', {
      filter: (node) => node.nodeName === 'A' && Boolean(node.getAttribute('href')),
      replacement: (content, node) => {
        const el = node as HTMLElement;
        const href = this.absolute(el.getAttribute('href') ?? '').replace(/([()])/g, '\\$1');
        const title = cleanAttribute(el.getAttribute('title'));
        return `[${content}](${href}${title ? ` "${title.replace(/"/g, '\\"')}"` : ''})`;
      },
    });
    this.turndown.addRule('absoluteImage', {
      filter: 'img',
      replacement: (_content, node) => {
        const el = node as HTMLElement;
        const src = el.getAttribute('src') ?? '';
        if (src === '') return '';
        const alt = cleanAttribute(el.getAttribute('alt'));
        const title = cleanAttribute(el.getAttribute('title'));
        return `![${alt}](${this.absolute(src)}${title ? ` "${title}"` : ''})`;
      },
    });
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

  /** The markdown of `html`; relative link and image URLs resolved against `baseUrl` when given. */
  convert(html: string, baseUrl?: string): string {
    this.base = baseUrl;
    try {
      return this.turndown.turndown(html).trim();
    } finally {
      this.base = undefined;
    }
  }

  /** `url` resolved against the current base; as written when there is none or it does not parse. */
  private absolute(url: string): string {
    const trimmed = url.trim();
    if (this.base === undefined) return trimmed;
    try {
      return new URL(trimmed, this.base).href;
    } catch {
      return trimmed;
    }
  }
}

/** An escaped underscore between two word characters. */
const INTRAWORD_UNDERSCORE = /(?<=[\p{L}\p{N}])\\_(?=[\p{L}\p{N}])/gu;
