// The optional blocks: text ads, the local pack, top stories and the AI overview. Each is found by a stable marker
// (data-text-ad / #tads, data-cid, g-section-with-header with heading links, data-mlro / data-subtree="aimc") and
// read by roles (role="heading", aria-label) rather than class names.
import type { Cheerio, CheerioAPI } from 'cheerio';
import type { AnyNode, Element } from 'domhandler';
import type { AdItem, LocalResultItem, TopStoryItem, WebSearchResult } from '@trawl/contracts';
import { AI_OVERVIEW_REGIONS, CAROUSEL_REGIONS } from './serp-regions.constants.js';
import { clean, hostnameOf, isDisplayUrl, isGoogleUtilityLink, resolveHref, textOf } from './serp-dom.util.js';

const AD_LINK = 'a[href*="/aclk?"], a[href*="googleadservices.com/pagead/aclk"]';
const AD_LABEL = /^(ad|ads|sponsored|anzeige|anzeigen|anuncio|annonce|patrocinado|sponsorisé|gesponsert)\s*[·:]\s*/i;

/**
 * Text ads: the units Google marks (data-text-ad, the #tads/#bottomads lists); on no-JS pages, which mark nothing,
 * the blocks around ad-click links (/aclk?).
 */
export function readAds($: CheerioAPI): AdItem[] {
  const marked = $('[data-text-ad], #tads li, #tadsb li, #bottomads li')
    .toArray()
    .filter((el) => $(el).parents('[data-text-ad]').length === 0);
  const units = marked.length > 0 ? marked : adClickBlocks($);
  const ads: AdItem[] = [];
  for (const el of units) {
    const unit = $(el);
    const heading = unit.find('[role="heading"], h3').first();
    const anchor = heading.closest('a[href]').length
      ? heading.closest('a[href]')
      : unit.find(AD_LINK).first().length
        ? unit.find(AD_LINK).first()
        : unit.find('a[href]').first();
    const titleEl = heading.length
      ? heading
      : anchor
          .find('div, span')
          .toArray()
          .map((e) => $(e))
          .find((e) => textOf(e) && !AD_LABEL.test(`${textOf(e)} ·`));
    const title = textOf(titleEl ?? anchor);
    if (!title || anchor.length === 0) continue;
    ads.push({
      position: ads.length + 1,
      title,
      link: adLink(anchor),
      displayLink: '',
      snippet: longestText($, unit, anchor),
    });
    const ad = ads[ads.length - 1];
    unit.find('cite, span, div').each((_, e) => {
      const t = textOf($(e)).replace(AD_LABEL, '');
      if (!ad.displayLink && t.length < 100 && isDisplayUrl(t)) ad.displayLink = t;
    });
    if (!ad.displayLink) ad.displayLink = hostnameOf(ad.link);
  }
  return ads;
}

/** The landing page: the link itself, else Google's adurl / data-pcu, else the click URL made absolute. */
function adLink(anchor: Cheerio<AnyNode>): string {
  const href = resolveHref(anchor.attr('href'));
  if (href && !isGoogleUtilityLink(href)) return href;
  const adurl = href ? new URL(href).searchParams.get('adurl') : null;
  if (adurl && /^https?:\/\//.test(adurl)) return adurl;
  const landing = anchor.attr('data-pcu') ? resolveHref(anchor.attr('data-pcu')) : null;
  return landing ?? href ?? '';
}

/**
 * No-JS ads: each carries an "Ad ·" / "Sponsored" label; an ad is the widest block around one label that holds an
 * ad-click link and no other label.
 */
function adClickBlocks($: CheerioAPI): Element[] {
  if ($(AD_LINK).length === 0) return [];
  const labels = $('span, div')
    .toArray()
    .filter((e) => $(e).children().length === 0 && AD_LABEL.test(`${textOf($(e))} ·`) && textOf($(e)).length < 80);
  const perAncestor = new Map<AnyNode, number>();
  for (const l of labels)
    for (const anc of $(l).parents().toArray()) perAncestor.set(anc, (perAncestor.get(anc) ?? 0) + 1);
  const blocks: Element[] = [];
  for (const l of labels) {
    let node = $(l);
    for (;;) {
      const parent = node.parent();
      if (
        parent.length === 0 ||
        parent.is('body, #main, #rso, #search, #center_col') ||
        (perAncestor.get(parent[0]) ?? 0) > 1
      )
        break;
      node = parent;
    }
    if (node.find(AD_LINK).length > 0 && !blocks.includes(node[0] as Element)) blocks.push(node[0] as Element);
  }
  return blocks;
}

/** The longest link-free text box of a unit (its description). */
function longestText($: CheerioAPI, unit: Cheerio<Element>, exclude: Cheerio<AnyNode>): string {
  let best = '';
  for (const el of unit.find('div, span').toArray()) {
    const box = $(el);
    if (box.find('a, [role="heading"]').length > 0 || box.closest('a').length > 0 || exclude.find(el).length > 0)
      continue;
    const t = textOf(box);
    if (t.length > best.length) best = t;
  }
  return best;
}

export function readLocalResults($: CheerioAPI): LocalResultItem[] {
  const out: LocalResultItem[] = [];
  const seen = new Set<string>();
  $('a[data-cid], [data-cid][role="link"], .rllt__link').each((_, el) => {
    const card = $(el);
    if (card.closest(CAROUSEL_REGIONS).length > 0) return;
    const heading = card.find('[role="heading"]').first();
    const title = textOf(heading);
    const cid = card.attr('data-cid') ?? '';
    if (!title || seen.has(cid) || card.parents('[data-cid]').length > 0) return;
    // The card's lines are its innermost <div>s: "4.7(45) · $ · Coffee shop", then "244 Gough St · …", then hours.
    const lines = card
      .find('div')
      .toArray()
      .filter((d) => $(d).find('div').length === 0 && d !== heading[0] && $(d).closest('[role="heading"]').length === 0)
      .map((d) => textOf($(d)))
      .filter(Boolean);
    const ratingLabel = card.find('[aria-label*="ated"], [role="img"][aria-label]').first().attr('aria-label') ?? '';
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
  });
  return out;
}

function parseCount(s: string): number | null {
  const m = /^([\d.,\s]+)([KkMm]?)$/.exec(s.trim());
  if (!m) return null;
  const mult = /k/i.test(m[2]) ? 1_000 : /m/i.test(m[2]) ? 1_000_000 : 1;
  const n = mult === 1 ? Number(m[1].replace(/[.,\s]/g, '')) : Number(m[1].replace(',', '.'));
  return Number.isFinite(n) ? Math.round(n * mult) : null;
}

export function readTopStories($: CheerioAPI): TopStoryItem[] {
  const out: TopStoryItem[] = [];
  const seen = new Set<string>();
  $('g-section-with-header a[href], [data-news-cluster-id] a[href], [data-news-doc-id] a[href]').each((_, el) => {
    const a = $(el);
    const heading = a.find('[role="heading"]').first();
    if (heading.length === 0) return;
    const link = resolveHref(a.attr('href'));
    if (!link || isGoogleUtilityLink(link) || seen.has(link)) return;
    if (a.find('[data-vid]').length > 0 || a.closest('[data-vid]').length > 0) return;
    seen.add(link);
    // The card's other text pieces, in order: the publisher comes first, the age last.
    const pieces = leafTexts($, a, heading[0]);
    // A story card ends with its age ("1 day ago", "Aug 16, 2019"); recipe and product cards in the same kind of
    // carousel do not.
    if (!/\d/.test(pieces[pieces.length - 1] ?? '')) return;
    out.push({
      title: textOf(heading),
      link,
      source: pieces.length >= 2 ? pieces[0] : '',
      date: pieces.length >= 1 ? pieces[pieces.length - 1] : '',
    });
  });
  return out;
}

/** Texts of the element's innermost text-holding elements, outside `skip`. */
function leafTexts($: CheerioAPI, root: Cheerio<Element>, skip: AnyNode): string[] {
  const out: string[] = [];
  root.find('*').each((_, el) => {
    const e = $(el);
    if (
      el === skip ||
      e
        .parents()
        .toArray()
        .includes(skip as Element)
    )
      return;
    if (e.children().length > 0 || e.is('img, svg, path')) return;
    const t = textOf(e);
    if (t && t.length <= 80) out.push(t);
  });
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
