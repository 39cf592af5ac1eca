import { Readability } from '@mozilla/readability';
import { isText, type ParentNode } from 'domhandler';
import { parseHTML } from 'linkedom';
import { findAll } from './main-content.extractor.js';

/**
 * A second opinion on an article's main content (ADR 0023, "A second opinion"): Mozilla's Readability over linkedom,
 * and the vote that merges its answer with ours, as trafilatura compares its own extraction with Readability's.
 *
 * 1. **Pick** (trafilatura's `compare_extraction` rule): when our text is more than twice as long as Readability's
 *    (and Readability's is not a scrap), ours took a container too wide; Readability's answer is the base. Otherwise
 *    ours is.
 * 2. **Vote**: a block of the base (a paragraph, a heading, a list, a table, a code block of the markdown) is kept
 *    when it is running text (`KEEP_ALONE_CHARS` characters or more) or when the other answer has it too (half its
 *    4-word shingles, or the whole block for one under four words). What only one method kept and is short (a
 *    byline, a caption, a share line, a "read more" teaser, a date) goes.
 *
 * Readability is bounded: it is not run on a document of more than `MAX_ELEMENTS` elements, and whatever it throws
 * leaves our own answer as it was.
 */

/** Readability's limit on the elements of a document (it gives up past it): a hostile page is never read twice. */
const MAX_ELEMENTS = 20_000;

/** A block this long (in characters of its words) is running text, kept without a second vote. */
const KEEP_ALONE_CHARS = 160;

/** Readability's answer counts as an article only from this many characters of words (trafilatura: 250 and up). */
const MIN_OTHER_CHARS = 1000;

/** Ours more than this many times as long as Readability's: ours is too wide (trafilatura's factor). */
const WIDER_FACTOR = 2;

/** The share of a block's shingles the other answer must have for the block to count as kept by both. */
const SHARED_SHINGLES = 0.5;

/** schema.org types of an article: Article and its kinds (NewsArticle, ...), a blog post, a report. */
const ARTICLE_TYPE = /^(?:[A-Za-z]*Article|BlogPosting|Report)$/;

/** What main content needs to know of a page before it strips the head and scripts. */
export interface ArticleHints {
  /** The page says it is an article: `og:type` `article`, a JSON-LD or microdata item of schema.org's Article
   * types (Article, NewsArticle, BlogPosting, ...). */
  declared: boolean;
  /** Its elements: past `MAX_ELEMENTS`, Readability is not run. */
  elements: number;
}

/** The page's article hints, in one walk. */
export function articleHints(root: ParentNode): ArticleHints {
  let declared = false;
  let elements = 0;
  for (const el of findAll(root, () => ++elements > 0)) {
    if (declared) break;
    const a = el.attribs;
    if (el.name === 'meta' && (a.property ?? a.name)?.toLowerCase() === 'og:type') {
      declared = /^article\b/i.test(a.content?.trim() ?? '');
    } else if (el.name === 'script' && a.type?.toLowerCase() === 'application/ld+json') {
      const json = el.children.map((c) => (isText(c) ? c.data : '')).join('');
      for (const m of json.slice(0, 100_000).matchAll(/"@type"\s*:\s*(\[[^\]]*\]|"[^"]*")/g)) {
        if ((m[1].match(/[A-Za-z]+/g) ?? []).some((t) => ARTICLE_TYPE.test(t))) declared = true;
      }
    } else if (a.itemtype !== undefined) {
      const type = /schema\.org\/([A-Za-z]+)/i.exec(a.itemtype)?.[1];
      declared = type !== undefined && ARTICLE_TYPE.test(type);
    }
  }
  return { declared, elements };
}

/** Readability's article HTML for a document, or undefined (not an article to it, too large, or an error). */
export function readabilityArticle(html: string, hints: ArticleHints): string | undefined {
  if (hints.elements > MAX_ELEMENTS) return undefined;
  try {
    const { document } = parseHTML(html);
    const article = new Readability(document as unknown as Document, { maxElemsToParse: MAX_ELEMENTS }).parse();
    return article?.content ?? undefined;
  } catch {
    return undefined;
  }
}

/** The vote between our main content's markdown and Readability's (both rendered by the same converter). */
export function mergeMainContent(ours: string, theirs: string): string {
  const theirWords = words(plain(theirs));
  if (theirWords.join(' ').length < MIN_OTHER_CHARS) return ours;
  const ourWords = words(plain(ours));
  const [base, otherWords] =
    ourWords.join(' ').length > WIDER_FACTOR * theirWords.join(' ').length ? [theirs, ourWords] : [ours, theirWords];
  const otherShingles = shingles(otherWords);
  const otherText = ` ${otherWords.join(' ')} `;
  const kept = blocks(base).filter((block) => {
    const w = words(plain(block));
    if (w.length === 0) return false;
    if (w.join(' ').length >= KEEP_ALONE_CHARS) return true;
    const own = shingles(w);
    if (own.size === 0) return otherText.includes(` ${w.join(' ')} `);
    let shared = 0;
    for (const s of own) if (otherShingles.has(s)) shared++;
    return shared >= own.size * SHARED_SHINGLES;
  });
  return kept.join('\n\n');
}

/** The markdown's blocks: runs of lines between blank lines, a fenced code block whole. */
function blocks(markdown: string): string[] {
  const out: string[] = [];
  let current: string[] = [];
  let fence: string | undefined;
  for (const line of markdown.split('\n')) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence !== undefined) {
      current.push(line);
      if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      continue;
    }
    if (marker !== undefined) fence = marker;
    if (line.trim() === '' && fence === undefined) {
      if (current.length > 0) out.push(current.join('\n'));
      current = [];
    } else current.push(line);
  }
  if (current.length > 0) out.push(current.join('\n'));
  return out;
}

/** Markdown read as text: images and link targets out, link texts kept. */
function plain(markdown: string): string {
  return markdown
    .replace(/!\[[^\]\n]*\]\([^)\n]*\)/g, ' ')
    .replace(/\]\([^)\n]*\)/g, ' ')
    .replace(/<[^>\n]*>/g, ' ');
}

/** The words of a text (runs of letters, digits and `_`), lower case. */
function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
}

/** The 4-word shingles of a run of words. */
function shingles(w: string[]): Set<string> {
  const set = new Set<string>();
  for (let i = 0; i + 4 <= w.length; i++) set.add(`${w[i]} ${w[i + 1]} ${w[i + 2]} ${w[i + 3]}`);
  return set;
}
