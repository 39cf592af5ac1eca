import { Readability } from '@mozilla/readability';
import { isTag, isText, type AnyNode, type Element, type ParentNode } from 'domhandler';
import { parseHTML } from 'linkedom';

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
 * Readability is bounded: it is not run on a document past `MAX_ELEMENTS`, `MAX_ELEMENT_LEVELS` or `MAX_TEXT`, and
 * whatever it throws leaves our own answer as it was.
 */

/**
 * Readability is run only on a document of at most `MAX_ELEMENTS` elements whose count times the depth of the
 * deepest is at most `MAX_ELEMENT_LEVELS`, and at most `MAX_TEXT` characters of text: its cost grows with each
 * (19,000 nested divs held it for minutes; at these limits a page built to be costly holds it about a second, inside
 * the page-work budget). Articles are well inside (the 61 pages of the quality fixture: at most 1,452 elements,
 * 31 levels, about 45,000 element levels). Past a limit the page keeps our own answer.
 */
const MAX_ELEMENTS = 10_000;
const MAX_ELEMENT_LEVELS = 120_000;
const MAX_TEXT = 100_000;

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
  /** Its elements, and the depth of the deepest: past `MAX_ELEMENTS` or `MAX_ELEMENT_LEVELS`, Readability is not run. */
  elements: number;
  depth: number;
  /** Characters of text outside scripts and styles: past `MAX_TEXT`, Readability is not run. */
  text: number;
}

/** The page's article hints, in one walk. */
export function articleHints(root: ParentNode): ArticleHints {
  let declared = false;
  let elements = 0;
  let depth = 0;
  let text = 0;
  const stack: [AnyNode, number][] = root.children.map((c) => [c, 1]);
  while (stack.length > 0) {
    const [el, level] = stack.pop() as [AnyNode, number];
    if (isText(el)) text += el.data.length;
    if (!isTag(el)) continue;
    elements++;
    if (level > depth) depth = level;
    if (el.name !== 'script' && el.name !== 'style') for (const child of el.children) stack.push([child, level + 1]);
    if (!declared) declared = declaresArticle(el);
  }
  return { declared, elements, depth, text };
}

/** An element that says its page is an article: `og:type`, a JSON-LD item or a microdata item. */
function declaresArticle(el: Element): boolean {
  const a = el.attribs;
  if (el.name === 'meta' && (a.property ?? a.name)?.toLowerCase() === 'og:type') {
    return /^article\b/i.test(a.content?.trim() ?? '');
  }
  if (el.name === 'script' && a.type?.toLowerCase() === 'application/ld+json') {
    const json = el.children.map((c) => (isText(c) ? c.data : '')).join('');
    for (const m of json.slice(0, 100_000).matchAll(/"@type"\s*:\s*(\[[^\]]*\]|"[^"]*")/g)) {
      if ((m[1].match(/[A-Za-z]+/g) ?? []).some((t) => ARTICLE_TYPE.test(t))) return true;
    }
    return false;
  }
  if (a.itemtype === undefined) return false;
  const type = /schema\.org\/([A-Za-z]+)/i.exec(a.itemtype)?.[1];
  return type !== undefined && ARTICLE_TYPE.test(type);
}

/** Readability's answer: its article's text, and its HTML (serialized only when asked). */
export interface ReadabilityAnswer {
  text: string;
  html(): string;
}

/** Whether a page is inside the limits Readability is run within (`MAX_ELEMENTS`, `MAX_ELEMENT_LEVELS`, `MAX_TEXT`). */
export function withinReadabilityLimits(hints: ArticleHints): boolean {
  return hints.elements <= MAX_ELEMENTS && hints.elements * hints.depth <= MAX_ELEMENT_LEVELS && hints.text <= MAX_TEXT;
}

/** Readability's answer for a document, or undefined (not an article to it, too large, or an error). */
export function readabilityArticle(html: string, hints: ArticleHints): ReadabilityAnswer | undefined {
  if (!withinReadabilityLimits(hints)) return undefined;
  try {
    const { document } = parseHTML(html);
    // The article's element as it is (no serializing unless its markdown is needed); JSON-LD is read by us.
    const article = new Readability<{ outerHTML: string }>(document as unknown as Document, {
      maxElemsToParse: MAX_ELEMENTS,
      disableJSONLD: true,
      serializer: (node) => node as unknown as { outerHTML: string },
    }).parse();
    const content = article?.content;
    if (!content) return undefined;
    return {
      text: article.textContent ?? '',
      html: () => content.outerHTML,
    };
  } catch {
    return undefined;
  }
}

/**
 * The vote between our main content's markdown and Readability's answer; `markdown` renders Readability's HTML (by
 * the converter ours went through), called only when its answer is the base.
 */
export function mergeMainContent(ours: string, theirs: ReadabilityAnswer, markdown: (html: string) => string): string {
  const theirLength = wordLength(theirs.text);
  if (theirLength < MIN_OTHER_CHARS)
    return blocks(ours)
      .filter((block) => !isDateLine(plain(block)))
      .join('\n\n');
  const [base, other] =
    wordLength(plain(ours)) > WIDER_FACTOR * theirLength ? [markdown(theirs.html()), plain(ours)] : [ours, theirs.text];
  // The headline stays (ADR 0023: a reader expects it on top), though Readability drops a title it has read: our
  // first block when it is a heading of rank 1, put back on top when Readability's answer is the base.
  const first = blocks(ours)[0];
  const headline = first !== undefined && /^# /.test(first) ? first : undefined;
  const all = blocks(base);
  if (headline !== undefined && base !== ours && !all.includes(headline)) all.unshift(headline);
  // Each block's words, and how many blocks with words come after it (a picture between notes does not count).
  const lengths = all.map((block) => wordLength(plain(block)));
  const after: number[] = [];
  for (let i = all.length - 1, n = 0; i >= 0; i--) {
    after[i] = n;
    if (lengths[i] > 0) n++;
  }
  // Each block kept, dropped, or put to the vote with the runs of words the other answer must have: its 4-word
  // shingles, or (under four words) the whole block as one run.
  const verdicts = all.map((block, i): boolean | Vote => {
    const text = plain(block);
    const length = lengths[i];
    if (length === 0) return false;
    if (after[i] < TRAILING_NOTES && length < MAX_NOTE_CHARS && isEmphasisOnly(block)) return false;
    // The reader asked to join, subscribe or give, among the article's last blocks, running text or not.
    if (after[i] < TRAILING_APPEALS && length < MAX_APPEAL_CHARS && APPEAL.test(text)) return false;
    // A short line all in emphasis right under a picture is its caption.
    if (i > 0 && length < MAX_NOTE_CHARS && isImageOnly(all[i - 1]) && isEmphasisOnly(block)) return false;
    if (length >= KEEP_ALONE_CHARS) return true;
    if (block === headline) return true;
    if (isDateLine(text) || isCallToSubscribe(text) || isLinkOnlyCallout(block)) return false;
    return vote(wordIds(text));
  });
  // The runs asked for, looked for in one pass over the other answer's words: the cost is its words plus the
  // blocks', never the blocks times its words.
  const asked = new Set<number>();
  const lengthsAsked = new Set<number>();
  for (const v of verdicts) {
    if (typeof v === 'boolean') continue;
    for (const run of v.runs) asked.add(run);
    lengthsAsked.add(v.words);
  }
  const found = asked.size > 0 ? runsFound(wordIds(other), asked, lengthsAsked) : asked;
  const kept = all.filter((_, i) => {
    const v = verdicts[i];
    if (typeof v === 'boolean') return v;
    let shared = 0;
    for (const run of v.runs) if (found.has(run)) shared++;
    return shared > 0 && shared >= v.runs.length * SHARED_SHINGLES;
  });
  // A heading left last heads nothing (its section was a promo or a teaser list, voted out).
  while (kept.length > 1 && /^#{1,6} /.test(kept[kept.length - 1]) && kept[kept.length - 1] !== headline) kept.pop();
  return kept.join('\n\n');
}

/**
 * A short block that only says when (or by whom) the article was posted: "Posted: Fri 6:45 PM, Feb 16, 2018",
 * "Updated 3 hours ago", "By Jane Doe | November 18, 2019". Both methods keep such lines at times; a reader does not
 * come for them.
 */
function isDateLine(text: string): boolean {
  const t = text.replace(/[*_#>|]/g, ' ').trim();
  return t.length <= 100 && DATE_LINE.test(t);
}

/**
 * A short block that asks the reader to subscribe or sign up ("Subscribe to X and stay smart ...", "Let our news
 * meet your inbox"): a promo inside the article's column, kept by both methods at times.
 */
function isCallToSubscribe(text: string): boolean {
  return text.length <= MAX_CALL_CHARS && CALL_TO_SUBSCRIBE.test(text);
}

/**
 * A block that is one link and nothing else, to the previous or next post ("Previous Post", "« Older article") or a
 * call to act ("LEARN MORE", "Read more", "Subscribe now"): navigation between articles, or a promo's button, kept
 * by both methods at times.
 */
function isLinkOnlyCallout(block: string): boolean {
  const m = /^\s*\[([^\]\n]*)\]\([^)\n]*\)\s*$/.exec(block);
  return m !== null && LINK_CALLOUT.test(plain(m[1]).replace(/[*_]/g, ' ').trim());
}

/** The text of a link alone in its block that is navigation or a call to act, not the article's words. */
const LINK_CALLOUT =
  /^(?:[«‹←<]\s*)?(?:(?:previous|next|older|newer|prev)\s+(?:post|article|story|entry|page)s?|(?:learn|read|see|find out|show) more|click here|subscribe(?: now)?|sign up(?: now)?|donate(?: now)?)(?:\s*[»›→>.!])?$/i;

const MAX_CALL_CHARS = 200;

/**
 * An appeal to the reader at an article's end ("If you enjoyed this article, ... Join X", "Support our journalism",
 * "Become a member"): what a publisher adds under every article, in its column. Looked for among the last
 * `TRAILING_APPEALS` blocks with words, up to `MAX_APPEAL_CHARS`.
 */
const APPEAL =
  /\b(?:if you (?:enjoyed|liked|like|value|appreciated?) (?:this|our|reading)|become an? (?:member|subscriber|supporter|patron)|support (?:our|independent|quality) (?:journalism|reporting|work)|(?:make|consider making) a (?:donation|contribution)|consider (?:subscribing|donating|supporting)|follow us on|follow (?:\S+ ){1,2}(?:full |complete |latest )?coverage)\b/i;
const TRAILING_APPEALS = 4;
const MAX_APPEAL_CHARS = 600;
const CALL_TO_SUBSCRIBE = /\b(?:subscribe|sign up|newsletters?|your inbox)\b/i;

const DATE_LINE =
  /^(?:(?:posted|updated|published|last updated|modified)(?: on| at)?\b[\s:]*|by [\p{Lu}][\p{L}.'-]+(?: [\p{Lu}][\p{L}.'-]+){0,3}\s*[|,·•-]\s*).{0,60}(?:\b(?:19|20)\d{2}\b|\d{1,2}:\d{2}|\bago\b)/iu;

/** The article's last blocks, where a short block all in emphasis is a note about it (a bio, a promo, a credit). */
const TRAILING_NOTES = 2;
const MAX_NOTE_CHARS = 300;

/** A block wholly in emphasis (`*...*`, `_..._`, `***...***`), link targets aside: an editor's note, an author's bio. */
function isEmphasisOnly(block: string): boolean {
  // Link targets out, strong marks out, and `*emphasis*` read as `_emphasis_` (the converter writes `*`).
  const text = block
    .replace(/\]\([^)\n]*\)/g, ']')
    .replace(/\*\*/g, '')
    .replace(/(?<!\\)\*/g, '_');
  if (/^\s*[([]?_[^_]+_[)\]]?\s*$/.test(text)) return true;
  // Runs of emphasis broken by links whose text is in emphasis too ("_Her book, "_[_Title_](...)_", is out now._"):
  // nothing but spaces and punctuation outside the runs.
  const runs = text.match(/_[^_\n]+_/g);
  return runs !== null && runs.length > 1 && /^[\s\p{P}\p{S}]*$/u.test(text.replace(/_[^_\n]+_/g, ''));
}

/** A block that is one or more pictures and nothing else (linked or not). */
function isImageOnly(block: string): boolean {
  return /^\s*(?:\[?!\[[^\]\n]*\]\([^)\n]*\)(?:\]\([^)\n]*\))?\s*)+$/.test(block);
}

/**
 * The length of a text's words joined by single spaces (about `words(text).join(' ')`), counted in one pass over the
 * characters without making them: letters, digits and `_` are word characters, and so is any character past ASCII
 * but spaces and general punctuation.
 */
function wordLength(text: string): number {
  let n = 0;
  let runs = 0;
  let previous = 0;
  for (let i = 0; i < text.length; i++) {
    const word = WORD_CHARACTER[text.charCodeAt(i)];
    n += word;
    runs += word & (previous ^ 1);
    previous = word;
  }
  return runs > 0 ? n + runs - 1 : 0;
}

/** 1 for a character `wordLength` counts as part of a word, by its UTF-16 code unit. */
const WORD_CHARACTER = new Uint8Array(0x10000).map((_, c) =>
  (
    c < 128
      ? (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95
      : c !== 0xa0 && !(c >= 0x2000 && c <= 0x206f) && !(c >= 0x3000 && c <= 0x303f)
  )
    ? 1
    : 0,
);

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

/** Words in a shingle: a block of this many words or more is voted by its shingles, a shorter one as one run. */
const SHINGLE_WORDS = 4;

/** A block put to the vote: the distinct runs of words the other answer must have, and their length in words. */
interface Vote {
  runs: number[];
  words: number;
}

/**
 * A block's vote from its words: its distinct 4-word shingles (half must be in the other answer), or under four
 * words the block as one run (which must be). A block without words has no runs and is not kept.
 */
function vote(ids: number[]): Vote {
  if (ids.length < SHINGLE_WORDS) return { runs: ids.length > 0 ? [runOf(ids, 0, ids.length)] : [], words: ids.length };
  const runs = new Set<number>();
  for (let i = 0; i + SHINGLE_WORDS <= ids.length; i++) runs.add(runOf(ids, i, SHINGLE_WORDS));
  return { runs: [...runs], words: SHINGLE_WORDS };
}

/** Which of the runs `asked` (of the lengths in `lengths`) are in the words `ids`, in one pass over them. */
function runsFound(ids: number[], asked: Set<number>, lengths: Set<number>): Set<number> {
  const found = new Set<number>();
  const longest = Math.max(...lengths);
  for (let i = 0; i < ids.length; i++) {
    let h = 0;
    for (let n = 1; n <= longest && i + n <= ids.length; n++) {
      h = runStep(h, ids[i + n - 1]);
      if (!lengths.has(n)) continue;
      const run = runEnd(h, n);
      if (asked.has(run)) found.add(run);
    }
  }
  return found;
}

/** The number of the run of `n` words of `ids` from `start`. */
function runOf(ids: number[], start: number, n: number): number {
  let h = 0;
  for (let k = start; k < start + n; k++) h = runStep(h, ids[k]);
  return runEnd(h, n);
}

/**
 * A run's number, built word by word and closed with its length (runs of two lengths never meet on their words
 * alone): 32-bit integers throughout, so that sets of them hold small integers, not boxed doubles. A collision costs
 * a vote, never the correctness of the page.
 */
function runStep(h: number, id: number): number {
  return Math.imul(h ^ id, 0x01000193);
}

function runEnd(h: number, n: number): number {
  const x = Math.imul(h ^ n, 0x85ebca6b);
  return x ^ (x >>> 13);
}

/**
 * A text's words (runs of letters, digits and `_`, lower case) as numbers, in one pass without making them: each a
 * 32-bit FNV-1a hash of its UTF-16 code units.
 */
function wordIds(text: string): number[] {
  const lower = text.toLowerCase();
  const ids: number[] = [];
  let h = 0;
  let inWord = false;
  for (let i = 0; i < lower.length; i++) {
    const c = lower.charCodeAt(i);
    let units = 1;
    let word: boolean;
    if (c < 128) word = (c >= 48 && c <= 57) || (c >= 97 && c <= 122) || c === 95 || (c >= 65 && c <= 90);
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < lower.length) {
      const cp = lower.codePointAt(i) as number;
      units = cp > 0xffff ? 2 : 1;
      word = isLetterOrDigit(cp);
    } else word = isLetterOrDigit(c);
    if (word) {
      if (!inWord) h = FNV_OFFSET;
      for (let k = 0; k < units; k++) h = Math.imul(h ^ lower.charCodeAt(i + k), 0x01000193);
    } else if (inWord) ids.push(h | 0);
    inWord = word;
    i += units - 1;
  }
  if (inWord) ids.push(h | 0);
  return ids;
}

const FNV_OFFSET = 0x811c9dc5 | 0;

/** Whether a code point is a letter or a digit (`\p{L}`, `\p{N}`); answers for the BMP kept (0 unknown, 1 no, 2 yes). */
function isLetterOrDigit(cp: number): boolean {
  if (cp > 0xffff) return LETTER_OR_DIGIT.test(String.fromCodePoint(cp));
  const known = bmpClass[cp];
  if (known !== 0) return known === 2;
  const yes = LETTER_OR_DIGIT.test(String.fromCharCode(cp));
  bmpClass[cp] = yes ? 2 : 1;
  return yes;
}

const LETTER_OR_DIGIT = /^[\p{L}\p{N}]$/u;
const bmpClass = new Uint8Array(0x10000);
