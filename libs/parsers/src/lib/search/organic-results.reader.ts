// Organic results. Layer 1 is structure that has held since 2019: a link that wraps an <h3> is a result's title, the
// block around it (up to the nearest data-hveid, or as far up as no other result is included) is the result.
// Inside it: <cite> is the displayed link, the data-sncf/data-content-feature parts or a line-clamped box hold the
// snippet, other external links are sitelinks. Obfuscated class names are only a late fallback.
import type { CheerioAPI } from 'cheerio';
import type { AnyNode, Element } from 'domhandler';
import type { SitelinkItem, WebResultItem } from '@trawl/contracts';
import { COLUMN_BOUNDARIES, NON_ORGANIC_FOR_H3, NON_ORGANIC_REGIONS } from './serp-regions.constants.js';
import {
  ancestorsOf,
  attrOf,
  clean,
  hostnameOf,
  imageSrcOf,
  isGoogleUtilityLink,
  looksLikeUrl,
  nodeText,
  resolveHref,
  type ImageSources,
} from './serp-dom.util.js';
import { pageQuery, type PageQuery } from '../scan/page-query.util.js';

interface ResultAnchor {
  anchor: Element;
  heading: Element;
  link: string;
  title: string;
}

export interface OrganicContext {
  pageOffset: number;
  images: ImageSources;
}

// The readers below work on the elements themselves (`pageQuery`): a result's block, snippet, cites and links are
// found from the nodes already in hand, not by wrapping each one in a selection and asking the document again.

/**
 * Links that wrap a heading and lead off Google, outside ads, "people also ask", carousels and side panels. The
 * heading is an <h3> on desktop pages (JS and no-JS); mobile markup uses role="heading" aria-level="3" instead,
 * which is only looked for when a page has no <h3> result at all (desktop pages use it for ads and local cards).
 */
export function findResultAnchors($: CheerioAPI): ResultAnchor[] {
  const query = pageQuery($);
  const byH3 = anchorsWithHeading(query, 'h3');
  return byH3.length > 0 ? byH3 : anchorsWithHeading(query, '[role="heading"][aria-level="3"]');
}

function anchorsWithHeading(query: PageQuery, headingSelector: string): ResultAnchor[] {
  const out: ResultAnchor[] = [];
  const notOrganic = headingSelector === 'h3' ? NON_ORGANIC_FOR_H3 : NON_ORGANIC_REGIONS;
  for (const anchor of query.find(query.root, 'a[href]')) {
    const heading = query.first(anchor, headingSelector);
    if (!heading) continue;
    if (query.within(anchor, notOrganic)) continue;
    const link = resolveHref(attrOf(anchor, 'href'));
    if (!link || isGoogleUtilityLink(link)) continue;
    const title = nodeText(heading);
    if (!title) continue;
    out.push({ anchor, heading, link, title });
  }
  return out;
}

export function readOrganicResults($: CheerioAPI, ctx: OrganicContext): WebResultItem[] {
  const query = pageQuery($);
  const anchors = findResultAnchors($);
  // How many result anchors each ancestor holds: a result's block never includes a second one.
  const perAncestor = new Map<AnyNode, number>();
  for (const { anchor } of anchors) {
    for (const anc of ancestorsOf(anchor)) perAncestor.set(anc, (perAncestor.get(anc) ?? 0) + 1);
  }
  const anchorNodes = new Set<AnyNode>(anchors.map((a) => a.anchor));
  return anchors.map((ra, i) => readResult(query, ra, blockOf(query, ra.anchor, perAncestor), anchorNodes, ctx, i));
}

interface Block {
  /** The nearest data-hveid block (Google's own unit), else the widest. */
  primary: Element;
  /** The widest ancestor holding only this result (reaches a featured snippet's text above the result). */
  widest: Element;
}

function blockOf(query: PageQuery, anchor: Element, perAncestor: ReadonlyMap<AnyNode, number>): Block {
  let node = anchor;
  let hveid: Element | undefined;
  for (const parent of ancestorsOf(anchor)) {
    if (query.is(parent, COLUMN_BOUNDARIES) || (perAncestor.get(parent) ?? 0) > 1) break;
    node = parent;
    if (!hveid && query.is(node, '[data-hveid]')) hveid = node;
  }
  return { primary: hveid ?? node, widest: node };
}

function readResult(
  query: PageQuery,
  ra: ResultAnchor,
  block: Block,
  anchorNodes: ReadonlySet<AnyNode>,
  ctx: OrganicContext,
  index: number,
): WebResultItem {
  const { anchor, link, title } = ra;
  const cites = [...query.find(block.primary, 'cite'), ...query.find(block.widest, 'cite')];
  // Forum results show "3 answers · 9 years ago" in a cite: the displayed link is the cite that reads as a URL.
  const cite = cites.find((c) => looksLikeUrl(nodeText(c)));
  const snippetEl =
    findSnippet(query, block.primary, anchor) ??
    (block.widest !== block.primary ? findSnippet(query, block.widest, anchor) : undefined);
  const { snippet, date, highlighted } = readSnippet(query, snippetEl);

  const domain = hostnameOf(link);
  let displayLink = cite ? nodeText(cite) : '';
  if (!displayLink) {
    const rest = nodeText(anchor, new Set([ra.heading]));
    displayLink = looksLikeUrl(rest) ? rest : domain;
  }
  const sourceText = nodeText(anchor, new Set<AnyNode>([ra.heading, ...query.find(anchor, 'cite')]));
  const source =
    sourceText && !looksLikeUrl(sourceText) && sourceText.length <= 80 ? sourceText : domain.replace(/^www\./, '');

  return {
    date,
    displayLink,
    domain,
    favicon: readFavicon(query, anchor, block.primary, snippetEl, ctx.images),
    link,
    realPosition: ctx.pageOffset + index + 1,
    sitelinks: readSitelinks(query, block.primary, anchor, link, snippetEl, anchorNodes),
    snippet,
    snippetHighlightedWords: highlighted,
    source,
    title,
  };
}

function isWithin(node: AnyNode, container: AnyNode): boolean {
  for (let n: AnyNode | null = node; n; n = n.parent as AnyNode | null) if (n === container) return true;
  return false;
}

/** Snippet holders, most stable first. */
const SNIPPET_SELECTORS = [
  '[data-sncf="1"]',
  '[data-content-feature="1"]',
  '[data-attrid="wa:/description"]',
  '[style*="-webkit-line-clamp"]',
  '.VwiC3b, .IsZvec, .aCOpRe, span.st, .s3v9rd',
];

function findSnippet(query: PageQuery, block: Element, a: Element): Element | undefined {
  // Outside the title link, not around it, not in a cite or heading (and, to be used, with text).
  const placed = (el: Element): boolean =>
    !isWithin(el, a) && !isWithin(a, el) && !query.within(el, 'cite, h3, [role="heading"]');
  const usable = (el: Element): boolean => placed(el) && nodeText(el).length > 0;
  for (const sel of SNIPPET_SELECTORS) {
    const hits = query.find(block, sel).filter(usable);
    // A box that also holds the sitelinks is a wrapper: prefer the link-free one inside it.
    const hit = hits.find((el) => query.first(el, 'a[href]') === undefined) ?? hits[0];
    if (hit) return hit;
  }
  // Last resort (no-JS and unknown layouts): the longest link-free text box of the block.
  let best: Element | undefined;
  let bestLen = 0;
  for (const el of query.find(block, 'div, span, p')) {
    // The text is read once, last (a box without text is never longer than the best).
    if (!placed(el) || query.first(el, 'a, cite, h3') !== undefined) continue;
    const len = nodeText(el).length;
    if (len > bestLen) {
      best = el;
      bestLen = len;
    }
  }
  return best && bestLen >= 20 ? best : undefined;
}

const DATE_TAIL = /\s*[—–\-·]\s*$/;

/**
 * A date before the snippet: "Nov 25, 2021 —", "há 7 dias —", "20.08.2025—" (em dash, 2021+) or, with a plain
 * hyphen or middle dot (2020), only when it carries a year or reads "… ago" (not "Products 1 - 60 of 1626 -").
 */
function isDateLead(t: string): boolean {
  if (!/\d/.test(t) || !DATE_TAIL.test(t)) return false;
  // Not a count in the same slot ("Results 1 - 48 of 20000+ —", "Products 1 - 60 of 1626 -").
  if (/\d\s+[-–]\s+\d|\d\+/.test(t)) return false;
  if (/[—–]\s*$/.test(t)) return true;
  return /\b(19|20)\d{2}\b/.test(t) || /\bago\b/i.test(t);
}

/** The snippet text, its leading date ("Nov 25, 2021 —", "há 7 dias —", "20.08.2025—") and its <em>/<b> words. */
function readSnippet(
  query: PageQuery,
  el: Element | undefined,
): { snippet: string; date: string; highlighted: string[] } {
  if (!el) return { snippet: '', date: '', highlighted: [] };
  let date = '';
  let dateEl: Element | undefined;
  for (const span of query.find(el, 'span', 4)) {
    const t = nodeText(span);
    if (t.length > 0 && t.length <= 40 && isDateLead(t) && query.first(span, 'em, b') === undefined) {
      date = clean(t.replace(DATE_TAIL, ''));
      dateEl = span;
      break;
    }
  }
  let snippet = nodeText(el, dateEl ? new Set([dateEl]) : undefined);
  if (!date) {
    const m = /^(.{4,40}?)\s+—\s+(.+)$/s.exec(snippet);
    if (m && isDateLead(`${m[1]} —`)) {
      date = clean(m[1]);
      snippet = clean(m[2]);
    }
  }
  const highlighted: string[] = [];
  for (const h of query.find(el, 'em, b')) {
    if (dateEl && isWithin(h, dateEl)) continue;
    const w = nodeText(h);
    if (w && !highlighted.includes(w)) highlighted.push(w);
  }
  return { snippet, date, highlighted };
}

function readFavicon(
  query: PageQuery,
  anchor: Element,
  block: Element,
  snippetEl: Element | undefined,
  images: ImageSources,
): string {
  const candidates = [...query.find(anchor, 'img'), ...query.find(block, 'img')];
  for (const img of candidates) {
    if (snippetEl && isWithin(img, snippetEl)) continue;
    const w = Number(attrOf(img, 'width') ?? /width:\s*(\d+)px/.exec(attrOf(img, 'style') ?? '')?.[1] ?? 0);
    if (w > 48) continue; // a thumbnail, not a favicon
    const src = imageSrcOf(img, images);
    if (src.startsWith('data:image/')) return src;
  }
  return '';
}

const NOT_SITELINK_CONTEXT =
  'cite, [role="button"], [role="menu"], [role="menuitem"], g-popup, .action-menu, [aria-haspopup]';

function readSitelinks(
  query: PageQuery,
  block: Element,
  anchor: Element,
  link: string,
  snippetEl: Element | undefined,
  anchorNodes: ReadonlySet<AnyNode>,
): { inline: SitelinkItem[]; table: SitelinkItem[] } {
  const inline: SitelinkItem[] = [];
  const table: SitelinkItem[] = [];
  const seen = new Set<string>([link]);
  for (const a of query.find(block, 'a[href]')) {
    if (a === anchor || anchorNodes.has(a) || isWithin(a, anchor)) continue;
    if (snippetEl && isWithin(a, snippetEl)) continue;
    if (query.within(a, NOT_SITELINK_CONTEXT)) continue;
    const url = resolveHref(attrOf(a, 'href'));
    if (!url || isGoogleUtilityLink(url) || seen.has(url)) continue;
    const title = nodeText(a);
    if (!title || title.length > 120) continue;
    seen.add(url);
    if (query.within(a, 'h3, [role="heading"], td')) {
      table.push({ link: url, snippet: tableSitelinkSnippet(query, a, block), title });
    } else if (isLinkRow(query, a)) {
      inline.push({ link: url, snippet: '', title });
    }
  }
  return { inline, table };
}

/**
 * Inline sitelinks sit in a row of nothing but links and separators ("Drive · Photos · Earth"). A link inside text,
 * such as a rich result's "Directed by: <a>The Wachowskis</a>", is not one.
 */
function isLinkRow(query: PageQuery, a: Element): boolean {
  let row: Element | undefined;
  for (const up of ancestorsOf(a)) {
    if (query.is(up, 'div, li, p, td')) {
      row = up;
      break;
    }
  }
  if (!row) return false;
  const rest = nodeText(row, new Set(query.find(row, 'a')));
  return /^[\s·|•,\-–—]*$/.test(rest);
}

/** A table sitelink's description: the text of the widest box around it that holds no other link. */
function tableSitelinkSnippet(query: PageQuery, a: Element, block: Element): string {
  let node = a;
  for (const parent of ancestorsOf(a)) {
    if (parent === block || query.find(parent, 'a[href]', 2).length > 1) break;
    node = parent;
  }
  const heading = query.closest(a, 'h3, [role="heading"]');
  return nodeText(node, new Set(heading ? [a, heading] : [a]));
}
