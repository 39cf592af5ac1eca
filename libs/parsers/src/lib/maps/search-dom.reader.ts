// Layer 3 for search pages: the rendered result list (`role="feed"` of `role="article"` cards, each with a link to
// the place whose URL carries its feature id, coordinates and place id).
import type * as cheerio from 'cheerio';
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

type Sel = cheerio.Cheerio<Parameters<typeof cheerio.contains>[0]>;

/** Text of each leaf cell of a card's info rows, one array per row. */
function infoRows($: cheerio.CheerioAPI, card: Sel): string[][] {
  const rows: string[][] = [];
  card.find('div').each((_, div) => {
    const row = $(div);
    const spans = row.children('span');
    if (spans.length === 0 || row.children('div').length > 0) return;
    if (row.find('[role="img"][aria-label*="star" i]').length > 0) return;
    const cells = spans
      .map((__, s) =>
        $(s)
          .text()
          .replace(/^\s*[·⋅]\s*/, '')
          .trim(),
      )
      .get()
      .filter((t) => t !== '');
    if (cells.length > 0) rows.push(cells);
  });
  return rows;
}

function readCard($: cheerio.CheerioAPI, card: Sel, locale: string | undefined): PlaceFacts | undefined {
  const link = card.find('a[href*="/maps/place/"]').first();
  const href = link.attr('href');
  const fromUrl = readPlaceUrl(href);
  const name =
    card.attr('aria-label')?.trim() ||
    link.attr('aria-label')?.trim() ||
    card.find('.fontHeadlineSmall').first().text().trim() ||
    undefined;
  if (!name) return undefined;

  // The star label reads "4.5 stars 1,234 Reviews", "4,5 Sterne 1.234 Rezensionen", "4,6 étoiles 3 412 avis": by
  // structure (a role="img" label starting with a rating), numbers read with the page locale's separators.
  const starLabel = card
    .find('[role="img"][aria-label]')
    .filter(
      (_, e) => /^\s*\d[.,]\d\b/.test($(e).attr('aria-label') ?? '') || /stars?/i.test($(e).attr('aria-label') ?? ''),
    )
    .first()
    .attr('aria-label');
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

  const rows = infoRows($, card).filter((r) => !r.every((t) => /^[\d.,]+\s*(\([\d.,\s\u00a0\u202f]+\))?$/.test(t)));
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
  const price = card
    .find('[role="img"][aria-label]')
    .filter((_, e) => isPriceLevel($(e).text()))
    .first();
  if (price.length > 0) {
    facts.priceDollar = price.text().trim();
    facts.priceText = price.attr('aria-label');
  }
  const parts = splitAddress(facts.address);
  facts.street = parts.street ?? facts.address;
  facts.image = card
    .find('img')
    .map((_, i) => $(i).attr('src'))
    .get()
    .find((s) => PHOTO_URL.test(s));
  const site = card
    .find('a[href]')
    .map((_, a) => unwrapRedirect($(a).attr('href')))
    .get()
    .find((u) => /^https?:\/\//.test(u) && !/^https?:\/\/(www\.)?google\.[a-z.]+\//.test(u));
  if (site) facts.website = site;
  facts.reviewsUrl = facts.placeId ? `https://search.google.com/local/reviews?placeid=${facts.placeId}` : undefined;
  return facts;
}

/** Cards of a rendered search page loaded once (`$`), in page order. */
export function readSearchDom($: cheerio.CheerioAPI): PlaceFacts[] {
  const locale = normaliseLocale($('html').attr('lang'));
  let cards: Sel = $('[role="feed"] [role="article"]');
  if (cards.length === 0) cards = $('[role="article"]');
  if (cards.length === 0) cards = $('a[href*="/maps/place/"]').parent();
  // A card never holds another card: only the innermost are read (a page of cards nested in cards would make every
  // outer card's reading cover the rest of the page). Found in one walk up from each card.
  const all = new Set(cards.toArray());
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
    const facts = readCard($, $(el), locale);
    if (facts) out.push(facts);
  }
  return out;
}

/** Whether the page is a rendered place page rather than a list (one heading, address/phone item rows). */
export function looksLikePlaceDom(html: string): boolean {
  return /data-item-id="(address|authority|phone:tel:[^"]*)"/.test(html);
}
