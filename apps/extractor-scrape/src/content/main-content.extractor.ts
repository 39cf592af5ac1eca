import { Document, Element, isTag, isText, type AnyNode, type ParentNode } from 'domhandler';

/**
 * The main content of a page (`onlyMainContent`, ADR 0023): the part a person came for, without navigation, banners,
 * sidebars, share bars, related-story lists, comment sections and footers. Pure, over a domhandler tree (htmlparser2),
 * every walk iterative (a page nested 100,000 deep costs time, never the stack). The tree is changed in place and the
 * element to render is returned.
 *
 * The method (ADR 0023; measured against Readability and trafilatura in BENCHMARKS.md):
 * 1. Clean: drop what is never content (scripts, controls, hidden elements), then page furniture by its tag, role,
 *    class or id words (nav, dialogs, page header and footer, sidebars, cookie banners, share bars, related links,
 *    adverts, comment sections, copyright lines), unless it holds a quarter of the page's text or the page's main
 *    parts (the main landmark, the headline, the article body).
 * 2. Score text blocks as Readability does (long, punctuated, few links; passed up to ancestors), take the best,
 *    promote it to an ancestor three near-best blocks share, widen it over wrappers and sections of running text,
 *    and add the siblings that read like more of it.
 * 3. Guard the pages that are not articles: the scored blocks are the content only when they hold 40 % of the
 *    non-link text of the page's scope (`main`, else the body) and are not a list of teasers; otherwise the content
 *    is the `main` landmark, or the text column (less its link blocks).
 * 4. Prune the article: link-dense blocks, teaser lists, figures, captions, galleries, bylines and dates.
 * The answer for a page that reads as an article, or says it is one, is then put to a vote with Readability's
 * (main-content-consensus.extractor.ts).
 */
export interface MainContentOptions {
  /** The page says it is an article (og:type, JSON-LD, microdata: `articleHints`). */
  declaredArticle?: boolean;
  /**
   * Called with the page's body once what is never content (scripts, styles, controls, hidden elements) is out of
   * it, before anything else changes the tree: what the digest hands Readability for its second opinion.
   */
  cleaned?: (body: ParentNode) => void;
}

export function extractMainContent(root: ParentNode, options: MainContentOptions = {}): MainContent {
  const body = findFirst(root, (e) => e.name === 'body') ?? root;
  removeAll(body, isNeverContent);
  options.cleaned?.(body);
  const before = measure(body);
  const pageText = before.get(body)?.text ?? 0;
  // Furniture is dropped unless it holds a large part of the page's text (a wrapper misnamed, or markup so broken
  // that the article ended up inside the footer).
  const markers = markerAncestors(body);
  removeFurniture(body, (e, inContent) => {
    const text = before.get(e)?.text ?? 0;
    return text <= pageText * MAX_FURNITURE_SHARE && isFurniture(e, inContent, markers, text);
  });
  const stats = measure(body);
  const total = stats.get(body)?.text ?? 0;
  if (total === 0) return { content: body, article: false };
  const landmark = findLandmark(body, stats, total, (before.get(body)?.text ?? 0) * 0.9, before);
  const scope: ParentNode = landmark ?? body;
  const article = chooseByScore(body, stats);
  if (article && article.parts.every((part) => isWithin(part, scope))) {
    const articleText = article.parts.reduce((n, part) => n + plainText(stats.get(part)), 0);
    if (articleText >= plainText(stats.get(scope)) * MIN_ARTICLE_SHARE) {
      const whole: Stats = { ...EMPTY_STATS };
      for (const part of article.parts) {
        const s = stats.get(part) as Stats;
        whole.text += s.text;
        whole.links += s.links;
      }
      const extras = new Set(article.parts.flatMap((part) => prunable(part, stats, whole, true)));
      // What is left a list of teasers is a home page or a listing, not an article.
      if (!isTeaserList(article.parts, extras, stats)) {
        for (const extra of extras) detach(extra);
        const container = new Document([]);
        for (const part of article.parts) container.children.push(part);
        return { content: container, article: true };
      }
    }
  }
  // Not an article. In the page's own main landmark everything is content (a home page's lists of headlines too);
  // without one, the content is the column that holds most of the page's text, less its link blocks.
  // A page that says it is an article (og:type, schema.org) loses what is around an article's body there too
  // (figures, captions, bylines, teaser lists): only the choice of the block fell back, not the kind of page.
  const declared = options.declaredArticle === true;
  if (landmark) {
    if (declared) prune(landmark, stats, stats.get(landmark) as Stats, true);
    return { content: landmark, article: false };
  }
  const column = contentColumn(body, stats);
  prune(column, stats, stats.get(column) as Stats, declared);
  return { content: column, article: false };
}

/** The element to render, and whether the page read as an article (else: the landmark or the text column). */
export interface MainContent {
  content: ParentNode;
  article: boolean;
}

/** Blocks that are a list of teasers (three linked headings or more, half the headings at least): a home page. */
function isTeaserList(parts: Element[], extras: Set<Element>, stats: Map<ParentNode, Stats>): boolean {
  let headings = 0;
  let linked = 0;
  for (const part of parts) {
    headings += stats.get(part)?.headings ?? 0;
    linked += stats.get(part)?.linkedHeadings ?? 0;
  }
  for (const extra of extras) {
    headings -= stats.get(extra)?.headings ?? 0;
    linked -= stats.get(extra)?.linkedHeadings ?? 0;
  }
  return isTeaserCount(headings, linked);
}

/** Three linked headings or more, and half the headings at least. */
function isTeaserCount(headings: number, linked: number): boolean {
  return linked >= 3 && linked * 2 >= headings;
}

/** A child holding this share of its parent's text is where the content is. */
const COLUMN_SHARE = 2 / 3;

/**
 * Descends from the body while one child element holds most of the text (a page's wrapper, its grid row, its
 * wide column), never past the element holding the page's first-rank heading.
 */
function contentColumn(body: ParentNode, stats: Map<ParentNode, Stats>): ParentNode {
  let current: ParentNode = body;
  const heading = findFirst(body, (e) => e.name === 'h1');
  const holdsHeading = new Set<ParentNode>();
  for (let n: ParentNode | null = heading ?? null; n; n = n.parent) holdsHeading.add(n);
  for (;;) {
    const total = plainText(stats.get(current));
    let next: Element | undefined;
    for (const child of current.children) {
      if (isTag(child) && plainText(stats.get(child)) >= total * COLUMN_SHARE) next = child;
    }
    if (!next || total === 0) return current;
    if (heading && !holdsHeading.has(next)) return current;
    current = next;
  }
}

/** The top block's least share of an ancestor it is promoted to. */
const MIN_PROMOTION_SHARE = 0.3;

/** Text outside links. */
function plainText(s: Stats | undefined): number {
  return s ? s.text - s.links : 0;
}

/** Below this share of the landmark's text, the scored block is not "the page's content" (a listing, a product). */
const MIN_ARTICLE_SHARE = 0.4;

/** Never content. */
const DROP_TAGS = new Set([
  'head',
  'script',
  'style',
  'noscript',
  'template',
  'svg',
  'iframe',
  'canvas',
  'object',
  'embed',
  'button',
  'input',
  'select',
  'textarea',
  'option',
  'link',
  'meta',
  'dialog',
]);

/** ARIA roles of page furniture. */
const DROP_ROLES = new Set(['navigation', 'dialog', 'alertdialog', 'search', 'menu', 'menubar', 'toolbar', 'banner']);

/** Class or id words of boilerplate blocks (matched as whole words of a class or id: `share-bar`, `cookie_notice`). */
const BOILERPLATE_WORDS =
  /(?:^|[-_ ])(cookies?|consent|gdpr|newsletters?|subscribe|subscription|signup|paywall|popup|modal|overlay|share|sharing|sharebar|social|socials|related|recommended|recommendations|trending|popular|most-?read|promo|promotions?|advert|advertisement|adverts|ads|ad|adslot|ad-slot|sponsor|sponsored|outbrain|taboola|breadcrumbs?|skip-?link|sidebar|widgets?|comments|comment-?(?:list|section|area|form|respond)|disqus|respond|byline|author-?bio|tags|tag-?list|toolbar|masthead|site-?header|site-?footer|footer|navbar|menu|pagination|pager|print|visually-?hidden|sr-only|screen-?reader)(?:$|[-_ ])/i;

/** Class or id words that mark content: an element that says so is never dropped for its name. */
const CONTENT_WORDS = /(?:^|[-_ ])(article|body|content|main|post|entry|story|text|page)(?:$|[-_ ])/i;

/** Tags whose class or id is read for boilerplate words (inline tags inherit their block's fate). */
const BLOCK_TAGS = new Set([
  'div',
  'section',
  'aside',
  'header',
  'footer',
  'ul',
  'ol',
  'dl',
  'table',
  'figure',
  'form',
  'span',
  'p',
  'li',
  'a',
]);

interface Stats {
  /** Characters of text (whitespace runs counted as one). */
  text: number;
  /** Characters of text inside links. */
  links: number;
  commas: number;
  /** Paragraph-like blocks inside. */
  paragraphs: number;
  /** Characters of text inside `<p>` elements. */
  paragraphText: number;
  /** Headings inside, and those of them that hold a link. */
  headings: number;
  linkedHeadings: number;
}

const EMPTY_STATS: Stats = {
  text: 0,
  links: 0,
  commas: 0,
  paragraphs: 0,
  paragraphText: 0,
  headings: 0,
  linkedHeadings: 0,
};

/** Removes every element passing `test` (and comments), outermost first, in one iterative walk. */
function removeAll(body: ParentNode, test: (e: Element) => boolean): void {
  const stack: AnyNode[] = [...body.children];
  while (stack.length > 0) {
    const node = stack.pop() as AnyNode;
    if (!isTag(node)) {
      if (node.type === 'comment' || node.type === 'directive') detach(node);
      continue;
    }
    if (test(node)) {
      detach(node);
      continue;
    }
    for (const child of node.children) stack.push(child);
  }
}

/**
 * Removes page furniture, outermost first, in one iterative walk that knows whether it is inside an `article` or
 * the `main` landmark.
 */
function removeFurniture(body: ParentNode, test: (e: Element, inContent: boolean) => boolean): void {
  const stack: [AnyNode, boolean][] = body.children.map((c) => [c, false]);
  while (stack.length > 0) {
    const [node, inContent] = stack.pop() as [AnyNode, boolean];
    if (!isTag(node)) continue;
    if (test(node, inContent)) {
      detach(node);
      continue;
    }
    const inside = inContent || node.name === 'article' || node.name === 'main';
    for (const child of node.children) stack.push([child, inside]);
  }
}

/**
 * The elements that hold one of the page's main parts (the main landmark, a heading of rank 1, an article body),
 * found in one walk up from each part.
 */
function markerAncestors(body: ParentNode): Set<Element> {
  const set = new Set<Element>();
  const parts = findAll(
    body,
    (e) => e.name === 'main' || e.name === 'h1' || e.attribs.role === 'main' || e.attribs.itemprop === 'articleBody',
  );
  for (const part of parts) {
    for (let n: ParentNode | null = part; n && isTag(n) && !set.has(n); n = n.parent) set.add(n);
  }
  return set;
}

/** Never content: scripts, styles, controls, hidden elements. */
function isNeverContent(el: Element): boolean {
  if (DROP_TAGS.has(el.name)) return true;
  const a = el.attribs;
  if ('hidden' in a || a['aria-hidden'] === 'true') return true;
  const style = a.style;
  return style !== undefined && /display\s*:\s*none|visibility\s*:\s*hidden/i.test(style);
}

/** The most of a page's text furniture may hold and still be dropped as such. */
const MAX_FURNITURE_SHARE = 0.25;

/** Page furniture by its tag, role, class or id: navigation, banners, footers, sidebars, share bars ... */
function isFurniture(el: Element, inContent: boolean, markers: Set<Element>, text: number): boolean {
  const name = el.name;
  const a = el.attribs;
  if (name === 'nav') return true;
  const role = a.role;
  if (role && DROP_ROLES.has(role)) return true;
  // An element that holds the page's main parts (the main landmark, the headline, the article body) is kept.
  const holdsContent = markers.has(el);
  if (name === 'footer' || role === 'contentinfo') return !holdsContent;
  // An aside inside the article or the main landmark is a note or a pull quote; elsewhere, a sidebar.
  if (name === 'aside' || role === 'complementary') return !inContent && !holdsContent;
  if (name === 'header' && !inContent) return !holdsContent;
  if (!BLOCK_TAGS.has(name)) return false;
  if ((name === 'div' || name === 'p' || name === 'section') && text < 300 && isCopyrightLine(el)) return true;
  const words = `${a.class ?? ''} ${a.id ?? ''}`;
  if (words.trim() === '' || !BOILERPLATE_WORDS.test(words)) return false;
  return !holdsContent;
}

/** A short block that states a copyright: a page footer. */
function isCopyrightLine(el: Element): boolean {
  return /©|\(c\) \d{4}|all rights reserved/i.test(ownText(el));
}

/** Text, link text, commas and paragraphs of every element under `root`, bottom-up, in one iterative walk. */
function measure(root: ParentNode): Map<ParentNode, Stats> {
  const stats = new Map<ParentNode, Stats>();
  const order: ParentNode[] = [];
  const stack: ParentNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop() as ParentNode;
    order.push(node);
    for (const child of node.children) if (isTag(child)) stack.push(child);
  }
  for (let i = order.length - 1; i >= 0; i--) {
    const node = order[i];
    const s: Stats = { ...EMPTY_STATS };
    for (const child of node.children) {
      if (isText(child)) {
        const len = textLength(child.data);
        s.text += len;
        s.commas += countCommas(child.data);
      } else if (isTag(child)) {
        const c = stats.get(child) as Stats;
        s.text += c.text;
        s.links += c.links;
        s.commas += c.commas;
        s.paragraphs += c.paragraphs;
        s.paragraphText += c.paragraphText;
        s.headings += c.headings;
        s.linkedHeadings += c.linkedHeadings;
      }
    }
    if (isTag(node) && node.name === 'a') {
      s.links = s.text;
      s.linkedHeadings = s.headings;
    }
    if (isTag(node) && node.name === 'p') s.paragraphText = s.text;
    if (isTag(node) && HEADINGS.has(node.name)) {
      s.headings = 1;
      s.linkedHeadings = s.links > 0 ? 1 : 0;
    }
    if (isTag(node) && PARAGRAPH_TAGS.has(node.name) && s.text >= 25) s.paragraphs++;
    stats.set(node, s);
  }
  return stats;
}

const HEADINGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);

const PARAGRAPH_TAGS = new Set(['p', 'pre', 'blockquote', 'td', 'li', 'dd']);

function textLength(data: string): number {
  let n = 0;
  let space = true;
  for (let i = 0; i < data.length; i++) {
    const c = data.charCodeAt(i);
    const isSpace = c === 32 || c === 10 || c === 9 || c === 13 || c === 12 || c === 160;
    if (isSpace) {
      if (!space) n++;
      space = true;
    } else {
      n++;
      space = false;
    }
  }
  return n;
}

function countCommas(data: string): number {
  let n = 0;
  for (let i = 0; i < data.length; i++) {
    const c = data.charCodeAt(i);
    if (c === 44 || c === 0xff0c || c === 0x3001 || c === 0x060c) n++;
  }
  return n;
}

/** The page's own landmark: one `main` (or role=main) holding a fair part of the text. */
function findLandmark(
  body: ParentNode,
  stats: Map<ParentNode, Stats>,
  total: number,
  wrapperText: number,
  before: Map<ParentNode, Stats>,
): Element | undefined {
  const mains = findAll(body, (e) => e.name === 'main' || e.attribs.role === 'main');
  let best: Element | undefined;
  for (const m of mains) if (!best || (stats.get(m)?.text ?? 0) > (stats.get(best)?.text ?? 0)) best = m;
  // A `main` that wraps the whole page (its header and menus too) says nothing.
  if (!best || (before.get(best)?.text ?? 0) >= wrapperText) return undefined;
  return (stats.get(best)?.text ?? 0) >= total * 0.25 ? best : undefined;
}

const BLOCK_SCORE: Record<string, number> = {
  div: 5,
  article: 8,
  section: 3,
  main: 3,
  pre: 3,
  td: 3,
  blockquote: 3,
  address: -3,
  ol: -3,
  ul: -3,
  dl: -3,
  dd: -3,
  dt: -3,
  li: -3,
  form: -3,
  h1: -5,
  h2: -5,
  h3: -5,
  h4: -5,
  h5: -5,
  h6: -5,
  th: -5,
};

/** Tags whose own text is a paragraph to score. */
const SCORED_TAGS = new Set(['p', 'pre', 'td', 'blockquote']);
/** Block children that stop a `div` from counting as a paragraph of its own. */
const BLOCK_CHILDREN = new Set([
  'p',
  'div',
  'section',
  'article',
  'table',
  'ul',
  'ol',
  'dl',
  'blockquote',
  'pre',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'figure',
  'header',
  'footer',
]);

/**
 * Readability's scoring: each paragraph of 25 characters or more scores 1 + commas + one point a 100 characters (at
 * most 3) and gives it to its parent, half to its grandparent, a third of that further up; each ancestor starts with
 * a score by its tag and its class; the total is discounted by link density. Then the best element is widened to
 * its parent while the parent holds comparable content (the text spread over sibling blocks).
 */
function chooseByScore(body: ParentNode, stats: Map<ParentNode, Stats>): { parts: Element[] } | undefined {
  const scores = new Map<Element, number>();
  const init = (e: Element): number => {
    let s = BLOCK_SCORE[e.name] ?? 0;
    const words = `${e.attribs.class ?? ''} ${e.attribs.id ?? ''}`;
    if (CONTENT_WORDS.test(words)) s += 25;
    if (BOILERPLATE_WORDS.test(words)) s -= 25;
    if (e.attribs.itemprop === 'articleBody') s += 50;
    return s;
  };
  for (const el of findAll(body, (e) => SCORED_TAGS.has(e.name) || isLeafDiv(e))) {
    const s = stats.get(el) as Stats;
    if (s.text < 25) continue;
    const points = 1 + s.commas + Math.min(Math.floor(s.text / 100), 3);
    let ancestor = el.parent;
    for (let level = 0; ancestor && isTag(ancestor) && stats.has(ancestor) && level < 5; level++) {
      if (!scores.has(ancestor)) scores.set(ancestor, init(ancestor));
      const share = level === 0 ? 1 : level === 1 ? 2 : level * 3;
      scores.set(ancestor, (scores.get(ancestor) as number) + points / share);
      ancestor = ancestor.parent;
    }
  }
  const ranked = [...scores.entries()]
    .map(([el, raw]) => {
      const s = stats.get(el) as Stats;
      return [el, raw * (1 - (s.text > 0 ? s.links / s.text : 0))] as const;
    })
    .sort((a, b) => b[1] - a[1]);
  for (const [el, score] of ranked) scores.set(el, score);
  if (ranked.length === 0) return undefined;
  let [top, topScore] = ranked[0];
  // Several blocks of near the top score under one ancestor: the article is that ancestor (Readability's rule).
  const alternatives = ranked
    .slice(1, 5)
    .filter(([, sc]) => sc >= topScore * 0.75)
    .map(([el]) => el);
  if (alternatives.length >= 3) {
    const topText = plainText(stats.get(top));
    for (let a = top.parent; a && isTag(a) && stats.has(a); a = a.parent) {
      if (topText < plainText(stats.get(a)) * MIN_PROMOTION_SHARE) break;
      if (alternatives.filter((alt) => isWithin(alt, a as Element)).length >= 3) {
        top = a;
        break;
      }
    }
  }
  // A wrapper that adds almost nothing is the same block; one that adds more running text (paragraphs, few links)
  // holds more of the article (an article split in sections around its figures).
  while (top.parent && isTag(top.parent) && stats.has(top.parent) && top.parent.name !== 'body') {
    const ps = stats.get(top.parent) as Stats;
    const cs = stats.get(top) as Stats;
    const gain = ps.text - cs.text;
    const runningText = ps.paragraphText - cs.paragraphText >= gain * 0.6 && ps.links - cs.links <= gain * 0.2;
    if (gain > cs.text * 0.1 && !runningText) break;
    top = top.parent;
  }
  topScore = scores.get(top) ?? topScore;
  // The article's siblings that read like more of it (Readability's sibling rule).
  const parent = top.parent;
  if (!parent || !isTag(parent) || !stats.has(parent)) return { parts: [top] };
  const threshold = Math.max(10, topScore * 0.2);
  const topClass = top.attribs.class ?? '';
  const parts: Element[] = [];
  for (const sibling of parent.children) {
    if (!isTag(sibling)) continue;
    if (sibling === top) {
      parts.push(sibling);
      continue;
    }
    const s = stats.get(sibling);
    if (!s || s.text === 0) continue;
    const density = s.links / s.text;
    let bonus = topClass !== '' && sibling.attribs.class === topClass ? topScore * 0.2 : 0;
    const score = (scores.get(sibling) ?? 0) + bonus;
    bonus = 0;
    if (score >= threshold) parts.push(sibling);
    else if (sibling.name === 'p' || isLeafDiv(sibling)) {
      if ((s.text > 80 && density < 0.25) || (s.text > 0 && density === 0 && /\.( |$)/.test(ownText(sibling)))) {
        parts.push(sibling);
      }
    }
  }
  return { parts };
}

/** The text of an element (its descendants' text nodes, in order), at most 2,000 characters. */
function ownText(el: Element): string {
  let out = '';
  const stack: AnyNode[] = [el];
  for (let visited = 0; stack.length > 0 && out.length < 2000 && visited < 4000; visited++) {
    const node = stack.pop() as AnyNode;
    if (isText(node)) out += node.data;
    else if (isTag(node)) for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]);
  }
  return out.trim();
}

function isLeafDiv(e: Element): boolean {
  if (e.name !== 'div') return false;
  for (const c of e.children) if (isTag(c) && BLOCK_CHILDREN.has(c.name)) return false;
  return true;
}

/**
 * Drops, inside the container, link-dense blocks and short blocks that are all links (unless the container is
 * itself mostly links: a listing keeps its entries), and trailing lists of teasers.
 */
function prune(container: ParentNode, stats: Map<ParentNode, Stats>, cs: Stats, article = false): void {
  for (const node of prunable(container, stats, cs, article)) detach(node);
}

/** The blocks `prune` drops (outermost only), the tree left as it is. */
function prunable(container: ParentNode, stats: Map<ParentNode, Stats>, cs: Stats, article: boolean): Element[] {
  const out: Element[] = [];
  if (!cs || cs.text === 0 || cs.links / cs.text > 0.5) return out;
  const stack: AnyNode[] = [...container.children];
  while (stack.length > 0) {
    const node = stack.pop() as AnyNode;
    if (!isTag(node)) continue;
    const s = stats.get(node);
    if (!s) continue;
    if (isLinkBlock(node, s, cs) || (article && isArticleExtra(node, s, cs))) {
      out.push(node);
      continue;
    }
    for (const child of node.children) stack.push(child);
  }
  return out;
}

/**
 * In an article, what is around the body rather than of it: figures and their captions, galleries, and teaser lists
 * (three linked headings or more, half the headings at least: "more stories"). The headline stays (a reader expects
 * it at the top; it costs the benchmark's measure about 0.003 of F1, which counts it as not the article's body).
 */
function isArticleExtra(el: Element, s: Stats, container: Stats): boolean {
  const name = el.name;
  if (name === 'figure' || name === 'figcaption') return true;
  const words = `${el.attribs.class ?? ''} ${el.attribs.id ?? ''}`;
  if (MEDIA_WORDS.test(words) && s.text <= container.text * 0.25) return true;
  if (name === 'time' || name === 'address') return s.text <= MAX_META_CHARS;
  if (ARTICLE_META_WORDS.test(words) && s.text <= MAX_META_CHARS && s.text <= container.text * 0.25)
    return BYLINE_OR_DATE.test(ownText(el));
  if (!TEASER_TAGS.has(name) || s.text > container.text * 0.5) return false;
  return isTeaserCount(s.headings, s.linkedHeadings);
}

/** Class or id words of media blocks around an article (galleries, captions, credits). */
const MEDIA_WORDS = /caption|gallery|slideshow|carousel|lightbox|(?:^|[-_ ])credits?(?:$|[-_ ])/i;

/** Class or id words of an article's own furniture: byline, dates, "posted by", tags. */
const ARTICLE_META_WORDS =
  /(?:^|[-_ ])(byline|bylines|authors?|author-?info|meta|entry-?meta|post-?meta|article-?meta|dateline|date|dates|time|timestamp|posted|posted-?on|published|updated|tags|categories|cat-?links)(?:$|[-_ ])/i;

/** What a byline or a date line says: a year, a time, "by", "ago", "posted", "updated". */
const BYLINE_OR_DATE = /\b(?:19|20)\d{2}\b|\d{1,2}:\d{2}|\b(?:by|ago|posted|updated|published)\b/i;

/** The most text an article's byline or date block holds. */
const MAX_META_CHARS = 300;

const TEASER_TAGS = new Set(['div', 'section', 'ul', 'ol', 'aside']);

const LINK_BLOCK_TAGS = new Set(['div', 'section', 'ul', 'ol', 'dl', 'table', 'p', 'figure', 'aside', 'header']);

function isLinkBlock(el: Element, s: Stats, container: Stats): boolean {
  if (!LINK_BLOCK_TAGS.has(el.name) || s.text === 0) return false;
  if (s.text > container.text * 0.3) return false;
  const density = s.links / s.text;
  // A paragraph of links: a short one that is one link and nothing else ("READ MORE: ..." in capitals, commas or
  // not), or a longer one that is mostly links ("DON'T MISS" and three headlines), is a teaser.
  // A paragraph that is one address written out ("http://example.com/2013/02/the-source.html") cites a source: it is
  // the article's own, not a teaser, whose link text is a headline.
  if (el.name === 'p') {
    if (density <= 0.8 || !(s.text >= 200 || s.commas === 0 || density >= 0.98)) return false;
    return !BARE_URL.test(ownText(el));
  }
  return density > 0.5;
}

/** A text that is one web address and nothing else. */
const BARE_URL = /^(?:https?:\/\/|www\.)\S+$/i;

function isWithin(node: ParentNode, ancestor: ParentNode): boolean {
  for (let n: ParentNode | null = node; n; n = n.parent) if (n === ancestor) return true;
  return false;
}

function detach(node: AnyNode): void {
  const parent = node.parent;
  if (!parent) return;
  const i = parent.children.indexOf(node);
  if (i >= 0) parent.children.splice(i, 1);
  if (node.prev) node.prev.next = node.next;
  if (node.next) node.next.prev = node.prev;
  node.parent = node.prev = node.next = null;
}

export function findFirst(root: ParentNode, test: (e: Element) => boolean): Element | undefined {
  const stack: AnyNode[] = [...root.children].reverse();
  while (stack.length > 0) {
    const node = stack.pop() as AnyNode;
    if (!isTag(node)) continue;
    if (test(node)) return node;
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]);
  }
  return undefined;
}

/** Every element under `root` passing `test`, in document order. */
export function findAll(root: ParentNode, test: (e: Element) => boolean): Element[] {
  const out: Element[] = [];
  const stack: AnyNode[] = [...root.children].reverse();
  while (stack.length > 0) {
    const node = stack.pop() as AnyNode;
    if (!isTag(node)) continue;
    if (test(node)) out.push(node);
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]);
  }
  return out;
}
