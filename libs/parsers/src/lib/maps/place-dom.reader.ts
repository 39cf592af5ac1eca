// Layer 3 for place pages: the rendered side panel (a page saved after scripts ran). Roles, aria labels and
// data-item-id attributes first; class names only where nothing else names the element.
import type * as cheerio from 'cheerio';
import { splitAddress } from './address.util.js';
import { afterLabel, isPriceLevel, PHOTO_URL, readPlaceUrl, unwrapRedirect } from './maps-dom.util.js';
import { cidFromDataId, mergeFacts, type PlaceFacts } from './place-facts.util.js';
import { normaliseLocale, parseLocaleCount, parseLocaleRating } from '../locale/index.js';
import { treeText } from '../scan/tree-text.util.js';

type Root = cheerio.CheerioAPI;
type Sel = cheerio.Cheerio<Parameters<typeof cheerio.contains>[0]>;

/** Item rows only a place panel has (address, website, phone, plus code). */
const PLACE_ITEMS =
  '[data-item-id="address"], [data-item-id="authority"], [data-item-id^="phone:tel:"], [data-item-id="oloc"]';

/**
 * The place's heading: an <h1> that is not an ad's. When a place is opened as a panel over a results list, the
 * list's own heading ("Results", "Ergebnisse") comes first in the page: the panel is the `role="main"` region that
 * holds the place's item rows, so its heading wins.
 */
function mainHeading($: Root) {
  const headings = $('h1').filter(
    (_, h) => !/sponsored/i.test($(h).attr('aria-label') ?? '') && $(h).text().trim() !== '',
  );
  if (headings.length === 0) return undefined;
  const inPanel = headings.filter((_, h) => {
    const region = $(h).closest('[role="main"]');
    return region.length > 0 && region.find(PLACE_ITEMS).length > 0 && region.find('[role="feed"]').length === 0;
  });
  return inPanel.length > 0 ? inPanel.first() : headings.first();
}

/** The first number of an aria label: "4,6 étoiles", "1.234 Rezensionen", "4.6 stars". */
const LEADING_NUMBER = /^\s*\d[\d.,\s\u00a0\u202f]*/;

/**
 * Rating and review count of the header by structure, in any interface language: the star icon is a `role="img"`
 * whose label starts with a decimal number up to 5 (shown beside it in an aria-hidden span); the review count is
 * the `role="img"` whose text is the count in parentheses, else the next label that starts with a whole number.
 * Numbers are read with the page locale's separators.
 */
function readRatingAndReviews(
  $: Root,
  scope: Sel,
  locale: string | undefined,
): { rating?: number; reviewsCount?: number } {
  const labelled = scope
    .find('[role="img"][aria-label]')
    .toArray()
    .map((e) => ({ el: $(e), label: $(e).attr('aria-label') ?? '' }))
    .filter(
      (x) => LEADING_NUMBER.test(x.label) && !isPriceLevel(x.el.text()) && x.el.closest('[role="feed"]').length === 0,
    );
  let rating: number | undefined;
  let ratingIndex = -1;
  labelled.some((x, i) => {
    if (!/^\s*\d[.,]\d\b/.test(x.label) && !/^\s*[0-5]\s*\D*$/.test(x.label)) return false;
    rating = parseLocaleRating(x.label, locale);
    ratingIndex = i;
    return rating !== undefined;
  });
  const rest = labelled.filter((_, i) => i !== ratingIndex);
  const counted =
    rest.find((x) => /^\(\s*[\d.,\s\u00a0\u202f]+\)$/.test(x.el.text().trim())) ??
    rest.find((x) => !/^\s*\d[.,]\d\b/.test(x.label));
  // A single label may read "4,5 Sterne 1.234 Rezensionen": the count is its second number.
  const combined =
    ratingIndex >= 0 ? /^\s*\d[.,]\d\D+(\d[\d.,\s\u00a0\u202f]*)/.exec(labelled[ratingIndex].label)?.[1] : undefined;
  const reviewsCount = counted
    ? parseLocaleCount(counted.label, locale)
    : combined
      ? parseLocaleCount(combined, locale)
      : undefined;
  return { rating, reviewsCount };
}

/** The smallest ancestor of the heading that also holds the category button: the place's header block. */
function headerBlock(h1: ReturnType<typeof mainHeading>): Sel | undefined {
  if (!h1) return undefined;
  let cur: Sel = h1.parent();
  for (let i = 0; i < 8 && cur.length > 0; i++) {
    if (cur.find('button[jsaction*="category"]').length > 0) return cur;
    cur = cur.parent();
  }
  return h1.parent().parent();
}

function readHours($: Root): { day: string; times: string[] }[] {
  const out: { day: string; times: string[] }[] = [];
  $('table tr').each((_, tr) => {
    const cells = $(tr).children('td, th');
    if (cells.length < 2) return;
    const day = cells.eq(0).text().trim();
    if (!/^[^\d]{3,}$/.test(day) || out.some((d) => d.day === day)) return;
    const items = cells
      .eq(1)
      .find('li')
      .map((__, li) => $(li).text().trim())
      .get()
      .filter(Boolean);
    const label = cells.eq(1).attr('aria-label');
    const times =
      items.length > 0
        ? items
        : (label ?? cells.eq(1).text())
            .split(',')
            .map((t) => t.trim())
            .filter(Boolean);
    if (times.length > 0) out.push({ day, times });
  });
  return out.length >= 5 && out.length <= 7 ? out : [];
}

/**
 * The page's own place URL as it appears in links (sign-in `continue`, share): the first `/maps/place/<name>/…`
 * whose name is the heading's. Only its ids and `!3d`/`!4d` coordinates are trusted (an `@` centre is the viewport).
 */
function ownPlaceUrl(html: string, name: string | undefined): ReturnType<typeof readPlaceUrl> {
  if (!name) return {};
  const norm = (s: string): string => s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
  const re = /\/maps\/place\/([^/"'&?\s<]+)\/[^"'\s<]*/g;
  for (let m = re.exec(html); m; m = re.exec(html)) {
    let slug = m[1];
    try {
      slug = decodeURIComponent(decodeURIComponent(slug));
    } catch {
      // keep the raw slug
    }
    if (norm(slug.replace(/\+/g, ' ')) !== norm(name)) continue;
    const found = readPlaceUrl(m[0].replace(/@-?\d[^/]*/, ''));
    if (found.dataId || found.placeId) return found;
  }
  return {};
}

/** Facts of the rendered place panel of a page loaded once (`$`); `html` is the same page as text. */
export function readPlaceDom($: Root, html: string, pageUrl?: string): PlaceFacts {
  const h1 = mainHeading($);
  const header = headerBlock(h1);
  const title = $('title')
    .first()
    .text()
    .replace(/\s*[-–]\s*Google Maps\s*$/i, '')
    .trim();
  const name = h1?.text().trim() || (title && !/^Google Maps$/i.test(title) ? title : undefined);

  const locale = normaliseLocale($('html').attr('lang'));
  const scope = header ?? h1?.closest('[role="main"]') ?? $('body');
  const { rating, reviewsCount } = readRatingAndReviews($, scope.length > 0 ? scope : $('body'), locale);
  const panelOverList = $('[role="feed"]').length > 0 && h1 !== undefined && h1.closest('[role="feed"]').length === 0;

  const addressEl = $('[data-item-id="address"]').first();
  const address = afterLabel(addressEl.attr('aria-label')) ?? (addressEl.text().trim() || undefined);
  const phoneEl = $('[data-item-id^="phone:tel:"]').first();
  const phone =
    afterLabel(phoneEl.attr('aria-label')) ?? phoneEl.attr('data-item-id')?.replace(/^phone:tel:/, '') ?? undefined;
  const website = unwrapRedirect($('a[data-item-id="authority"]').first().attr('href'));
  const menu = unwrapRedirect($('a[data-item-id="menu"]').first().attr('href'));
  const reservation = $('a[data-item-id^="action:"]')
    .map((_, a) => unwrapRedirect($(a).attr('href')))
    .get()
    .filter((u): u is string => typeof u === 'string' && /^https?:/.test(u));

  const category = (header ?? $('body')).find('button[jsaction*="category"]').first().text().trim();
  const price = (header ?? $('body'))
    .find('span[aria-label]')
    .filter((_, s) => isPriceLevel($(s).text()))
    .first();
  const heroImg = $('button[jsaction*="heroHeaderImage"] img').first().attr('src');
  const anyPhoto = $('img')
    .map((_, i) => $(i).attr('src'))
    .get()
    .find((s) => PHOTO_URL.test(s));
  const headerText = header?.text() ?? '';
  const canonical = $('link[rel="canonical"]').attr('href') ?? $('meta[itemprop="url"]').attr('content');
  // The page URL of a panel over a list is the search's: its `@` centre is the viewport, not the place.
  const fromUrl = panelOverList
    ? mergeFacts(readPlaceUrl(canonical), ownPlaceUrl(html, name))
    : mergeFacts(readPlaceUrl(canonical ?? pageUrl), ownPlaceUrl(html, name));
  const parts = splitAddress(address);

  return {
    name,
    address,
    ...parts,
    ...fromUrl,
    cid: cidFromDataId(fromUrl.dataId),
    reviewsUrl: fromUrl.placeId ? `https://search.google.com/local/reviews?placeid=${fromUrl.placeId}` : undefined,
    rating,
    reviewsCount,
    phone,
    website,
    categories: category ? [category] : [],
    description: $('.PYvSYb').first().text().trim() || undefined,
    image: heroImg ?? anyPhoto,
    priceDollar: price.length > 0 ? price.text().trim() : undefined,
    priceText: price.attr('aria-label') || undefined,
    menuUrls: [menu, ...reservation].filter((u): u is string => typeof u === 'string'),
    hours: readHours($),
    claimed: !/claim this business/i.test(treeText($('body').toArray())),
    permanentlyClosed: /permanently closed/i.test(headerText) || undefined,
    temporarilyClosed: /temporarily closed/i.test(headerText) || undefined,
    panelOverList: panelOverList || undefined,
  };
}
