// Layer 3 for search pages: the rendered result list (`role="feed"` of `role="article"` cards, each with a link to
// the place whose URL carries its feature id, coordinates and place id).
import type * as cheerio from 'cheerio';
import { isTag, type Element } from 'domhandler';
import { textContent } from 'domutils';
import { splitAddress } from './address.util.js';
import {
  isOpeningStatus,
  isPhoneText,
  isPriceLevel,
  PHOTO_URL,
  readPlaceUrl,
  unwrapRedirect,
} from './maps-dom.util.js';
import { cidFromDataId, type PlaceFacts } from './place-facts.util.js';
import { normaliseLocale, parseLocaleCount, parseLocaleRating } from '../locale/index.js';
import { pageQuery, type PageQuery } from '../scan/page-query.util.js';

/** Text of each leaf cell of a card's info rows, one array per row. */
function infoRows(query: PageQuery, card: Element): string[][] {
  const rows: string[][] = [];
  for (const row of query.find(card, 'div')) {
    const kids = row.children.filter(isTag);
    const spans = kids.filter((k) => query.is(k, 'span'));
    if (spans.length === 0 || kids.some((k) => query.is(k, 'div'))) continue;
    if (query.first(row, '[role="img"][aria-label*="star" i]')) continue;
    const cells = spans
      .map((s) =>
        textContent(s)
          .replace(/^\s*[·⋅]\s*/, '')
          .trim(),
      )
      .filter((t) => t !== '');
    if (cells.length > 0) rows.push(cells);
  }
  return rows;
}

/** `.attr(name)` of an element (undefined for none). */
function attr(el: Element | undefined, name: string): string | undefined {
  return el && Object.hasOwn(el.attribs, name) ? el.attribs[name] : undefined;
}

function readCard(query: PageQuery, card: Element, locale: string | undefined): PlaceFacts | undefined {
  const link = query.first(card, 'a[href*="/maps/place/"]');
  const href = attr(link, 'href');
  const fromUrl = readPlaceUrl(href);
  const headline = query.first(card, '.fontHeadlineSmall');
  const name =
    attr(card, 'aria-label')?.trim() ||
    attr(link, 'aria-label')?.trim() ||
    (headline ? textContent(headline) : '').trim() ||
    undefined;
  if (!name) return undefined;

  // The star label reads "4.5 stars 1,234 Reviews", "4,5 Sterne 1.234 Rezensionen", "4,6 étoiles 3 412 avis": by
  // structure (a role="img" label starting with a rating), numbers read with the page locale's separators.
  const labelled = query.find(card, '[role="img"][aria-label]');
  const starLabel = attr(
    labelled.find(
      (e) => /^\s*\d[.,]\d\b/.test(attr(e, 'aria-label') ?? '') || /stars?/i.test(attr(e, 'aria-label') ?? ''),
    ),
    'aria-label',
  );
  const starMatch = /(\d[.,]?\d*)\D*(\d[\d.,\s\u00a0\u202f]*)?/.exec(starLabel ?? '');
  const facts: PlaceFacts = {
    name,
    ...fromUrl,
    cid: cidFromDataId(fromUrl.dataId),
    mapsUrl: href ? unwrapRedirect(href) : undefined,
    rating: parseLocaleRating(starMatch?.[1], locale),
    reviewsCount: parseLocaleCount(starMatch?.[2], locale),
    categories: [],
  };

  const rows = infoRows(query, card).filter((r) => !r.every((t) => /^[\d.,]+\s*(\([\d.,\s\u00a0\u202f]+\))?$/.test(t)));
  let first = true;
  for (const row of rows) {
    if (row.some(isOpeningStatus) && !facts.status) {
      facts.status = row.join(' · ');
      const phone = row.find(isPhoneText);
      if (phone) facts.phone = phone;
      continue;
    }
    if (first) {
      first = false;
      const [category, ...rest] = row;
      if (category && !isPriceLevel(category)) facts.categories = [category];
      for (const cell of rest) {
        if (isPriceLevel(cell)) facts.priceDollar = cell;
        else if (isPhoneText(cell)) facts.phone = cell;
        else facts.address = cell;
      }
      continue;
    }
    const phone = row.find(isPhoneText);
    if (phone) facts.phone = phone;
    else if (!facts.description && row.length === 1) facts.description = row[0].replace(/^"|"$/g, '');
  }
  const price = labelled.find((e) => isPriceLevel(textContent(e)));
  if (price) {
    facts.priceDollar = textContent(price).trim();
    facts.priceText = attr(price, 'aria-label');
  }
  const parts = splitAddress(facts.address);
  facts.street = parts.street ?? facts.address;
  facts.image = query
    .find(card, 'img')
    .map((i) => attr(i, 'src'))
    .find((s): s is string => s !== undefined && PHOTO_URL.test(s));
  const site = query
    .find(card, 'a[href]')
    .map((a) => unwrapRedirect(attr(a, 'href')))
    .find(
      (u): u is string => u !== undefined && /^https?:\/\//.test(u) && !/^https?:\/\/(www\.)?google\.[a-z.]+\//.test(u),
    );
  if (site) facts.website = site;
  facts.reviewsUrl = facts.placeId ? `https://search.google.com/local/reviews?placeid=${facts.placeId}` : undefined;
  return facts;
}

/** Cards of a rendered search page loaded once (`$`), in page order. */
export function readSearchDom($: cheerio.CheerioAPI): PlaceFacts[] {
  const query = pageQuery($);
  const locale = normaliseLocale($('html').attr('lang'));
  let cards: Element[] = query.find(query.root, '[role="feed"] [role="article"]');
  if (cards.length === 0) cards = query.find(query.root, '[role="article"]');
  if (cards.length === 0) cards = $('a[href*="/maps/place/"]').parent().toArray() as Element[];
  // A card never holds another card: only the innermost are read (a page of cards nested in cards would make every
  // outer card's reading cover the rest of the page). Found in one walk up from each card.
  const all = new Set(cards);
  const outer = new Set<unknown>();
  for (const card of all) {
    for (let up = card.parent; up; up = up.parent) {
      if (outer.has(up)) break;
      if (all.has(up as typeof card)) outer.add(up);
    }
  }
  const out: PlaceFacts[] = [];
  for (const el of all) {
    if (outer.has(el)) continue;
    const facts = readCard(query, el, locale);
    if (facts) out.push(facts);
  }
  return out;
}

/** Whether the page is a rendered place page rather than a list (one heading, address/phone item rows). */
export function looksLikePlaceDom(html: string): boolean {
  return /data-item-id="(address|authority|phone:tel:[^"]*)"/.test(html);
}
