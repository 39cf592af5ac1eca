// The optional blocks: text ads, the local pack, top stories and the AI overview. Each is found by a stable marker
// (data-text-ad / #tads, data-cid, g-section-with-header with heading links, data-mlro / data-subtree="aimc") and
// read by roles (role="heading", aria-label) rather than class names.
import type { CheerioAPI } from 'cheerio';
import { isTag, type AnyNode, type Element } from 'domhandler';
import type { AdItem, LocalResultItem, TopStoryItem, WebSearchResult } from '@trawl/contracts';
import { AI_OVERVIEW_REGIONS, CAROUSEL_REGIONS } from './serp-regions.constants.js';
import {
  ancestorsOf,
  attrOf,
  clean,
  hostnameOf,
  isDisplayUrl,
  isGoogleUtilityLink,
  nodeText,
  resolveHref,
  textOf,
} from './serp-dom.util.js';
import { pageQuery, type PageQuery } from '../scan/page-query.util.js';

const AD_LINK = 'a[href*="/aclk?"], a[href*="googleadservices.com/pagead/aclk"]';
const AD_LABEL = /^(ad|ads|sponsored|anzeige|anzeigen|anuncio|annonce|patrocinado|sponsorisé|gesponsert)\s*[·:]\s*/i;

/**
 * Text ads: the units Google marks (data-text-ad, the #tads/#bottomads lists); on no-JS pages, which mark nothing,
 * the blocks around ad-click links (/aclk?).
 */
export function readAds($: CheerioAPI): AdItem[] {
  const query = pageQuery($);
  const marked = query
    .find(query.root, '[data-text-ad], #tads li, #tadsb li, #bottomads li')
    .filter((el) => !el.parent || !query.within(el.parent, '[data-text-ad]'));
  const units = marked.length > 0 ? marked : adClickBlocks(query);
  const ads: AdItem[] = [];
  for (const unit of units) {
    const heading = query.first(unit, '[role="heading"], h3');
    const anchor =
      (heading && query.closest(heading, 'a[href]')) ?? query.first(unit, AD_LINK) ?? query.first(unit, 'a[href]');
    const titleEl =
      heading ??
      (anchor
        ? query.find(anchor, 'div, span').find((e) => nodeText(e) && !AD_LABEL.test(`${nodeText(e)} ·`))
        : undefined);
    const title = nodeText(titleEl ?? anchor);
    if (!title || !anchor) continue;
    const link = adLink(anchor);
    let displayLink = '';
    for (const e of query.find(unit, 'cite, span, div')) {
      const t = nodeText(e).replace(AD_LABEL, '');
      if (t.length < 100 && isDisplayUrl(t)) {
        displayLink = t;
        break;
      }
    }
    ads.push({
      position: ads.length + 1,
      title,
      link,
      displayLink: displayLink || hostnameOf(link),
      snippet: longestText(query, unit, anchor),
    });
  }
  return ads;
}

/** The landing page: the link itself, else Google's adurl / data-pcu, else the click URL made absolute. */
function adLink(anchor: Element): string {
  const href = resolveHref(attrOf(anchor, 'href'));
  if (href && !isGoogleUtilityLink(href)) return href;
  const adurl = href ? new URL(href).searchParams.get('adurl') : null;
  if (adurl && /^https?:\/\//.test(adurl)) return adurl;
  const pcu = attrOf(anchor, 'data-pcu');
  const landing = pcu ? resolveHref(pcu) : null;
  return landing ?? href ?? '';
}

/**
 * No-JS ads: each carries an "Ad ·" / "Sponsored" label; an ad is the widest block around one label that holds an
 * ad-click link and no other label.
 */
function adClickBlocks(query: PageQuery): Element[] {
  if (!query.first(query.root, AD_LINK)) return [];
  const labels = query.find(query.root, 'span, div').filter((e) => {
    if (e.children.some(isTag)) return false;
    const t = nodeText(e);
    return AD_LABEL.test(`${t} ·`) && t.length < 80;
  });
  const perAncestor = new Map<AnyNode, number>();
  for (const l of labels) for (const anc of ancestorsOf(l)) perAncestor.set(anc, (perAncestor.get(anc) ?? 0) + 1);
  const blocks: Element[] = [];
  for (const l of labels) {
    let node = l;
    for (const parent of ancestorsOf(l)) {
      if (query.is(parent, 'body, #main, #rso, #search, #center_col') || (perAncestor.get(parent) ?? 0) > 1) break;
      node = parent;
    }
    if (query.first(node, AD_LINK) && !blocks.includes(node)) blocks.push(node);
  }
  return blocks;
}

/** The longest link-free text box of a unit (its description). */
function longestText(query: PageQuery, unit: Element, exclude: Element): string {
  let best = '';
  for (const box of query.find(unit, 'div, span')) {
    if (query.first(box, 'a, [role="heading"]') || query.within(box, 'a') || isInside(box, exclude)) continue;
    const t = nodeText(box);
    if (t.length > best.length) best = t;
  }
  return best;
}

export function readLocalResults($: CheerioAPI): LocalResultItem[] {
  const query = pageQuery($);
  const out: LocalResultItem[] = [];
  const seen = new Set<string>();
  for (const card of query.find(query.root, 'a[data-cid], [data-cid][role="link"], .rllt__link')) {
    if (query.within(card, CAROUSEL_REGIONS)) continue;
    const heading = query.first(card, '[role="heading"]');
    const title = nodeText(heading);
    const cid = attrOf(card, 'data-cid') ?? '';
    if (!title || seen.has(cid) || (card.parent && query.within(card.parent, '[data-cid]'))) continue;
    // The card's lines are its innermost <div>s: "4.7(45) · $ · Coffee shop", then "244 Gough St · …", then hours.
    const lines = query
      .find(card, 'div')
      .filter((d) => !query.first(d, 'div') && d !== heading && !query.within(d, '[role="heading"]'))
      .map((d) => nodeText(d))
      .filter(Boolean);
    const ratingLabel = attrOf(query.first(card, '[aria-label*="ated"], [role="img"][aria-label]'), 'aria-label') ?? '';
    const ratingLine = lines.find((l) => /^\d[.,]\d/.test(l)) ?? '';
    const ratingM = /(\d[.,]\d)/.exec(ratingLine) ?? /(\d[.,]\d)/.exec(ratingLabel);
    const reviewsM = /\(([\d.,\s]+[KkMm]?)\)/.exec(ratingLine);
    const parts = ratingLine.split('·').map((p) => clean(p));
    const type =
      parts
        .slice(1)
        .reverse()
        .find((p) => p && !/^[$€£¥₹]+$/.test(p) && !/^\d/.test(p)) ?? '';
    const afterRating = ratingLine ? lines.slice(lines.indexOf(ratingLine) + 1) : lines;
    const address = clean((afterRating[0] ?? '').split('·')[0]);
    seen.add(cid);
    out.push({
      position: out.length + 1,
      title,
      rating: ratingM ? Number(ratingM[1].replace(',', '.')) : null,
      reviews: reviewsM ? parseCount(reviewsM[1]) : null,
      type,
      address,
    });
  }
  return out;
}

function parseCount(s: string): number | null {
  const m = /^([\d.,\s]+)([KkMm]?)$/.exec(s.trim());
  if (!m) return null;
  const mult = /k/i.test(m[2]) ? 1_000 : /m/i.test(m[2]) ? 1_000_000 : 1;
  const n = mult === 1 ? Number(m[1].replace(/[.,\s]/g, '')) : Number(m[1].replace(',', '.'));
  return Number.isFinite(n) ? Math.round(n * mult) : null;
}

/** Where top stories are: their cards are the links inside. */
const STORY_REGIONS = 'g-section-with-header, [data-news-cluster-id], [data-news-doc-id]';

export function readTopStories($: CheerioAPI): TopStoryItem[] {
  const query = pageQuery($);
  const out: TopStoryItem[] = [];
  const seen = new Set<string>();
  for (const a of linksInside(query, STORY_REGIONS)) {
    const heading = query.first(a, '[role="heading"]');
    if (!heading) continue;
    const link = resolveHref(attrOf(a, 'href'));
    if (!link || isGoogleUtilityLink(link) || seen.has(link)) continue;
    if (query.first(a, '[data-vid]') || query.within(a, '[data-vid]')) continue;
    seen.add(link);
    // The card's other text pieces, in order: the publisher comes first, the age last.
    const pieces = leafTexts(query, a, heading);
    // A story card ends with its age ("1 day ago", "Aug 16, 2019"); recipe and product cards in the same kind of
    // carousel do not.
    if (!/\d/.test(pieces[pieces.length - 1] ?? '')) continue;
    out.push({
      title: nodeText(heading),
      link,
      source: pieces.length >= 2 ? pieces[0] : '',
      date: pieces.length >= 1 ? pieces[pieces.length - 1] : '',
    });
  }
  return out;
}

/**
 * `$('R a[href]')` for a list of compounds R, from the regions down: the links under the outermost regions, in
 * document order (each link once), instead of an ancestor walk from every link of the page.
 */
function linksInside(query: PageQuery, regions: string): Element[] {
  const out: Element[] = [];
  let last: Element | undefined;
  for (const region of query.find(query.root, regions)) {
    if (last && isInside(region, last)) continue; // its links are among the outer region's
    last = region;
    for (const a of query.find(region, 'a[href]')) out.push(a);
  }
  return out;
}

function isInside(node: AnyNode, container: AnyNode): boolean {
  for (let up = node.parent; up; up = up.parent) if (up === container) return true;
  return false;
}

/** Texts of the element's innermost text-holding elements, outside `skip`. */
function leafTexts(query: PageQuery, root: Element, skip: AnyNode): string[] {
  const out: string[] = [];
  for (const el of query.find(root, '*')) {
    if (el === skip || isInside(el, skip)) continue;
    if (el.children.some(isTag) || query.is(el, 'img, svg, path')) continue;
    const t = nodeText(el);
    if (t && t.length <= 80) out.push(t);
  }
  return out;
}

export function readAiOverview($: CheerioAPI): WebSearchResult['aiOverview'] {
  const root = $(AI_OVERVIEW_REGIONS).first();
  if (root.length === 0) return null;
  const outer = root.parents(AI_OVERVIEW_REGIONS).last();
  const box = outer.length ? outer : root;
  // The generated text sits in data-rl (2025+) or data-subtree="aimc"; the box also holds hidden error messages.
  const body = box.find('[data-subtree="aimc"]').first().length
    ? box.find('[data-subtree="aimc"]').first()
    : box
        .find('[data-rl]')
        .toArray()
        .map((e) => $(e))
        .sort((x, y) => textOf(y).length - textOf(x).length)[0];
  const text = body ? textOf(body) : '';
  if (text.length < 40) return null;
  const sources: { title: string; link: string }[] = [];
  const seen = new Set<string>();
  box.find('a[href]').each((_, el) => {
    const a = $(el);
    const link = resolveHref(a.attr('href'));
    if (!link || isGoogleUtilityLink(link) || /support\.google\.|policies\.google\./.test(link) || seen.has(link))
      return;
    const title = clean(a.attr('aria-label') ?? '') || textOf(a);
    if (!title) return;
    seen.add(link);
    sources.push({ title, link });
  });
  return { text, sources };
}
