// Organic results. Layer 1 is structure that has held since 2019: a link that wraps an <h3> is a result's title, the
// block around it (up to the nearest data-hveid, or as far up as no other result is included) is the result.
// Inside it: <cite> is the displayed link, the data-sncf/data-content-feature parts or a line-clamped box hold the
// snippet, other external links are sitelinks. Obfuscated class names are only a late fallback.
import type { Cheerio, CheerioAPI } from 'cheerio';
import type { AnyNode, Element } from 'domhandler';
import type { SitelinkItem, WebResultItem } from '@trawl/contracts';
import { COLUMN_BOUNDARIES, NON_ORGANIC_FOR_H3, NON_ORGANIC_REGIONS } from './serp-regions.constants.js';
import {
  clean,
  hostnameOf,
  imageSrc,
  isGoogleUtilityLink,
  looksLikeUrl,
  nodeSet,
  resolveHref,
  textOf,
} from './serp-dom.util.js';

interface ResultAnchor {
  anchor: Cheerio<Element>;
  heading: Cheerio<Element>;
  link: string;
  title: string;
}

export interface OrganicContext {
  pageOffset: number;
  images: ReadonlyMap<string, string>;
}

/**
 * Links that wrap a heading and lead off Google, outside ads, "people also ask", carousels and side panels. The
 * heading is an <h3> on desktop pages (JS and no-JS); mobile markup uses role="heading" aria-level="3" instead,
 * which is only looked for when a page has no <h3> result at all (desktop pages use it for ads and local cards).
 */
export function findResultAnchors($: CheerioAPI): ResultAnchor[] {
  const byH3 = anchorsWithHeading($, 'h3');
  return byH3.length > 0 ? byH3 : anchorsWithHeading($, '[role="heading"][aria-level="3"]');
}

function anchorsWithHeading($: CheerioAPI, headingSelector: string): ResultAnchor[] {
  const out: ResultAnchor[] = [];
  $('a[href]').each((_, el) => {
    const anchor = $(el);
    const heading = anchor.find(headingSelector).first();
    if (heading.length === 0) return;
    if (anchor.closest(headingSelector === 'h3' ? NON_ORGANIC_FOR_H3 : NON_ORGANIC_REGIONS).length > 0) return;
    const link = resolveHref(anchor.attr('href'));
    if (!link || isGoogleUtilityLink(link)) return;
    const title = textOf(heading);
    if (!title) return;
    out.push({ anchor, heading, link, title });
  });
  return out;
}

export function readOrganicResults($: CheerioAPI, ctx: OrganicContext): WebResultItem[] {
  const anchors = findResultAnchors($);
  // How many result anchors each ancestor holds: a result's block never includes a second one.
  const perAncestor = new Map<AnyNode, number>();
  for (const { anchor } of anchors) {
    for (const anc of anchor.parents().toArray()) perAncestor.set(anc, (perAncestor.get(anc) ?? 0) + 1);
  }
  const anchorNodes = new Set<AnyNode>(anchors.map((a) => a.anchor[0]));
  return anchors.map((ra, i) => readResult($, ra, blockOf(ra.anchor, perAncestor), anchorNodes, ctx, i));
}

interface Block {
  /** The nearest data-hveid block (Google's own unit), else the widest. */
  primary: Cheerio<Element>;
  /** The widest ancestor holding only this result (reaches a featured snippet's text above the result). */
  widest: Cheerio<Element>;
}

function blockOf(anchor: Cheerio<Element>, perAncestor: ReadonlyMap<AnyNode, number>): Block {
  let node: Cheerio<Element> = anchor;
  let hveid: Cheerio<Element> | undefined;
  for (;;) {
    const parent = node.parent();
    if (parent.length === 0 || parent.is(COLUMN_BOUNDARIES) || (perAncestor.get(parent[0]) ?? 0) > 1) break;
    node = parent;
    if (!hveid && node.is('[data-hveid]')) hveid = node;
  }
  return { primary: hveid ?? node, widest: node };
}

function readResult(
  $: CheerioAPI,
  ra: ResultAnchor,
  block: Block,
  anchorNodes: ReadonlySet<AnyNode>,
  ctx: OrganicContext,
  index: number,
): WebResultItem {
  const { anchor, link, title } = ra;
  const cites = [...block.primary.find('cite').toArray(), ...block.widest.find('cite').toArray()].map((c) => $(c));
  // Forum results show "3 answers · 9 years ago" in a cite: the displayed link is the cite that reads as a URL.
  const cite = cites.find((c) => looksLikeUrl(textOf(c)));
  const snippetEl =
    findSnippet($, block.primary, anchor) ??
    (block.widest[0] !== block.primary[0] ? findSnippet($, block.widest, anchor) : undefined);
  const { snippet, date, highlighted } = readSnippet($, snippetEl);

  const domain = hostnameOf(link);
  let displayLink = cite ? textOf(cite) : '';
  if (!displayLink) {
    const rest = textOf(anchor, nodeSet(ra.heading));
    displayLink = looksLikeUrl(rest) ? rest : domain;
  }
  const sourceText = textOf(anchor, nodeSet(ra.heading, anchor.find('cite')));
  const source =
    sourceText && !looksLikeUrl(sourceText) && sourceText.length <= 80 ? sourceText : domain.replace(/^www\./, '');

  return {
    date,
    displayLink,
    domain,
    favicon: readFavicon($, anchor, block.primary, snippetEl, ctx.images),
    link,
    realPosition: ctx.pageOffset + index + 1,
    sitelinks: readSitelinks($, block.primary, anchor, link, snippetEl, anchorNodes),
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

function findSnippet($: CheerioAPI, block: Cheerio<Element>, anchor: Cheerio<Element>): Cheerio<Element> | undefined {
  const a = anchor[0];
  const usable = (el: Element): boolean =>
    !isWithin(el, a) &&
    !isWithin(a, el) &&
    $(el).closest('cite, h3, [role="heading"]').length === 0 &&
    textOf($(el)).length > 0;
  for (const sel of SNIPPET_SELECTORS) {
    const hits = block.find(sel).toArray().filter(usable);
    // A box that also holds the sitelinks is a wrapper: prefer the link-free one inside it.
    const hit = hits.find((el) => $(el).find('a[href]').length === 0) ?? hits[0];
    if (hit) return $(hit);
  }
  // Last resort (no-JS and unknown layouts): the longest link-free text box of the block.
  let best: Element | undefined;
  let bestLen = 0;
  for (const el of block.find('div, span, p').toArray()) {
    if (!usable(el) || $(el).find('a, cite, h3').length > 0) continue;
    const len = textOf($(el)).length;
    if (len > bestLen) {
      best = el;
      bestLen = len;
    }
  }
  return best && bestLen >= 20 ? $(best) : undefined;
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
  $: CheerioAPI,
  el: Cheerio<Element> | undefined,
): { snippet: string; date: string; highlighted: string[] } {
  if (!el) return { snippet: '', date: '', highlighted: [] };
  let date = '';
  let dateEl: Cheerio<Element> | undefined;
  for (const span of el.find('span').toArray().slice(0, 4)) {
    const t = textOf($(span));
    if (t.length > 0 && t.length <= 40 && isDateLead(t) && $(span).find('em, b').length === 0) {
      date = clean(t.replace(DATE_TAIL, ''));
      dateEl = $(span);
      break;
    }
  }
  let snippet = textOf(el, dateEl ? nodeSet(dateEl) : undefined);
  if (!date) {
    const m = /^(.{4,40}?)\s+—\s+(.+)$/s.exec(snippet);
    if (m && isDateLead(`${m[1]} —`)) {
      date = clean(m[1]);
      snippet = clean(m[2]);
    }
  }
  const highlighted: string[] = [];
  el.find('em, b').each((_, h) => {
    if (dateEl && isWithin(h, dateEl[0])) return;
    const w = textOf($(h));
    if (w && !highlighted.includes(w)) highlighted.push(w);
  });
  return { snippet, date, highlighted };
}

function readFavicon(
  $: CheerioAPI,
  anchor: Cheerio<Element>,
  block: Cheerio<Element>,
  snippetEl: Cheerio<Element> | undefined,
  images: ReadonlyMap<string, string>,
): string {
  const candidates = [...anchor.find('img').toArray(), ...block.find('img').toArray()];
  for (const img of candidates) {
    if (snippetEl && isWithin(img, snippetEl[0])) continue;
    const w = Number($(img).attr('width') ?? /width:\s*(\d+)px/.exec($(img).attr('style') ?? '')?.[1] ?? 0);
    if (w > 48) continue; // a thumbnail, not a favicon
    const src = imageSrc($(img), images);
    if (src.startsWith('data:image/')) return src;
  }
  return '';
}

const NOT_SITELINK_CONTEXT =
  'cite, [role="button"], [role="menu"], [role="menuitem"], g-popup, .action-menu, [aria-haspopup]';

function readSitelinks(
  $: CheerioAPI,
  block: Cheerio<Element>,
  anchor: Cheerio<Element>,
  link: string,
  snippetEl: Cheerio<Element> | undefined,
  anchorNodes: ReadonlySet<AnyNode>,
): { inline: SitelinkItem[]; table: SitelinkItem[] } {
  const inline: SitelinkItem[] = [];
  const table: SitelinkItem[] = [];
  const seen = new Set<string>([link]);
  for (const el of block.find('a[href]').toArray()) {
    if (el === anchor[0] || anchorNodes.has(el) || isWithin(el, anchor[0])) continue;
    if (snippetEl && isWithin(el, snippetEl[0])) continue;
    const a = $(el);
    if (a.closest(NOT_SITELINK_CONTEXT).length > 0) continue;
    const url = resolveHref(a.attr('href'));
    if (!url || isGoogleUtilityLink(url) || seen.has(url)) continue;
    const title = textOf(a);
    if (!title || title.length > 120) continue;
    seen.add(url);
    if (a.closest('h3, [role="heading"], td').length > 0) {
      table.push({ link: url, snippet: tableSitelinkSnippet(a, block), title });
    } else if (isLinkRow(a)) {
      inline.push({ link: url, snippet: '', title });
    }
  }
  return { inline, table };
}

/**
 * Inline sitelinks sit in a row of nothing but links and separators ("Drive · Photos · Earth"). A link inside text,
 * such as a rich result's "Directed by: <a>The Wachowskis</a>", is not one.
 */
function isLinkRow(a: Cheerio<Element>): boolean {
  const row = a.parents('div, li, p, td').first();
  if (row.length === 0) return false;
  const rest = textOf(row, nodeSet(row.find('a')));
  return /^[\s·|•,\-–—]*$/.test(rest);
}

/** A table sitelink's description: the text of the widest box around it that holds no other link. */
function tableSitelinkSnippet(a: Cheerio<Element>, block: Cheerio<Element>): string {
  let node: Cheerio<Element> = a;
  for (;;) {
    const parent = node.parent();
    if (parent.length === 0 || parent[0] === block[0] || parent.find('a[href]').length > 1) break;
    node = parent;
  }
  return textOf(node, nodeSet(a, a.closest('h3, [role="heading"]')));
}
