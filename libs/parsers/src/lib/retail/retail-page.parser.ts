import { TrawlError, type RetailRecord } from '@trawl/contracts';
import { asinFromUrl } from './product-url.builder.js';
import { assertNotBlocked } from './retail-blocked.detector.js';
import { extractDetails } from './retail-details.extractor.js';
import { clean, firstAttr, firstText, parseCount, parseRating, textOf, unique } from './retail-dom.util.js';
import { extractImages, extractVariants } from './retail-media.extractor.js';
import { extractPrices } from './retail-price.extractor.js';
import { loadRetailPage, type RetailPage } from './retail-page.reader.js';
import type { ScanMeter } from '../scan/scan-meter.types.js';

const ASIN_RE = /^[A-Z0-9]{10}$/;
const TITLE = ['#productTitle', '#ebooksProductTitle', '#title span', '#title'];

/**
 * Parses an Amazon product page (amazon.com, .ae and the other stores; 2019–2026 layouts) into a RetailRecord.
 *
 * Reads in layers, the most stable first: element ids (#productTitle, #landingImage, input#ASIN, the canonical link),
 * JSON Amazon embeds in scripts and data attributes (image block, twister, buy-box price data), then class names.
 * A page whose scripts were stripped still parses from the DOM. Throws TrawlError UPSTREAM_BLOCKED for a robot check
 * (captcha, AWS WAF challenge) or the 503 throttling page, UPSTREAM_NOT_FOUND for Amazon's 404 page, and
 * PAGE_NOT_RECOGNISED for any other page that is not a product page.
 */
export function parseProductPage(html: string, ctx: { url: string; meter?: ScanMeter }): RetailRecord {
  const page = loadRetailPage(html, ctx.meter);
  const { $, q } = page;
  const bodyText = clean($('body').text() || $.root().text());
  assertNotBlocked(page, bodyText, html);

  const title = firstText(page, TITLE);
  const isProduct = q('#dp, #dp-container, #ppd, #ASIN, #productTitle').length > 0;
  if (!title || !isProduct) {
    throw new TrawlError('PAGE_NOT_RECOGNISED', 'not an Amazon product page: no product title (#productTitle) found');
  }

  const details = extractDetails(page);
  const { price, list_price } = extractPrices(page, ctx.url);
  const { main_image, images } = extractImages(page);
  const availability = readAvailability(page);

  return {
    asin: readAsin(page, ctx.url),
    url: ctx.url,
    title,
    brand: readBrand(page, details.specifications),
    price,
    list_price,
    rating: parseRating(
      firstAttr(page, ['#acrPopover'], 'title') ??
        firstText(page, [
          '#acrPopover .a-icon-alt',
          '#averageCustomerReviews .a-icon-alt',
          '[data-hook="rating-out-of-text"]',
        ]),
    ),
    reviews_count: parseCount(
      firstAttr(page, ['#acrCustomerReviewText'], 'aria-label') ??
        firstText(page, ['#acrCustomerReviewText', '[data-hook="total-review-count"]']),
    ),
    availability,
    in_stock: inStock(page, availability),
    main_image,
    images,
    features: readFeatures(page),
    description: readDescription(page),
    categories: details.categories,
    best_sellers_rank: details.best_sellers_rank,
    seller: readSeller(page),
    bought_past_month: readBoughtPastMonth(page),
    date_first_available: details.date_first_available,
    variants: extractVariants(page),
    specifications: details.specifications,
  };
}

function readAsin({ $, q }: RetailPage, url: string): string | null {
  const candidates = [
    q('#ASIN').first().attr('value'),
    $('input[name="ASIN"]').first().attr('value'),
    q('#averageCustomerReviews').attr('data-asin'),
    asinFromUrl($('link[rel="canonical"]').attr('href')),
    asinFromUrl(url),
    mostFrequent(
      $('[data-csa-c-asin]')
        .toArray()
        .map((el) => $(el).attr('data-csa-c-asin') ?? ''),
    ),
  ];
  return candidates.map((c) => clean(c)).find((c) => ASIN_RE.test(c)) ?? null;
}

function mostFrequent(values: string[]): string | undefined {
  const counts = new Map<string, number>();
  for (const v of values) if (ASIN_RE.test(v)) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
}

const BRAND_NAME = /^(brand|brand name|marke|marque|marca|marchio)$/i;
const BYLINE = [
  /^brand:\s*(.+)$/i,
  /^visit the (.+?) store$/i,
  /^besuche den (.+?)[- ]store$/i,
  /^marke:\s*(.+)$/i,
  /^visitez la boutique (.+)$/i,
  /^marque\s*:\s*(.+)$/i,
  /^visita la tienda de (.+)$/i,
  /^marca:\s*(.+)$/i,
  /^visita lo store di (.+)$/i,
  /^by\s+(.+)$/i,
];

/** The brand: the specification row named Brand, else the byline ("Visit the JETech Store", "Brand: Versuni"). */
function readBrand(page: RetailPage, specs: Record<string, string>): string | null {
  const fromSpecs = Object.entries(specs).find(([k]) => BRAND_NAME.test(k))?.[1];
  if (fromSpecs) return fromSpecs;
  const byline = firstText(page, ['#bylineInfo', '#brand', '#bylineInfo_feature_div a']);
  if (!byline) return null;
  for (const re of BYLINE) {
    const m = re.exec(byline);
    if (m) return clean(m[1]);
  }
  return byline;
}

function readAvailability(page: RetailPage): string | null {
  const { $, q } = page;
  const box = q('#availability').first();
  const primary = box
    .find('span')
    .toArray()
    .map((el) => textOf($(el)))
    .find((t) => t.length > 0);
  return primary || textOf(box) || firstText(page, ['#outOfStock .a-color-price', '#outOfStock']) || null;
}

const OUT_OF_STOCK =
  /out of stock|unavailable|not available|nicht verfügbar|derzeit nicht|rupture de stock|indisponible|no disponible|non disponibile|agotado|غير متوفر/i;
const IN_STOCK =
  /in stock|left in stock|usually ships|ships within|dispatched|auf lager|en stock|disponible|disponibile|em estoque|متوفر/i;

/** Whether the item can be bought now: from the availability wording, else from the add-to-cart button. */
function inStock({ q }: RetailPage, availability: string | null): boolean | null {
  if (availability && OUT_OF_STOCK.test(availability)) return false;
  if (availability && IN_STOCK.test(availability)) return true;
  if (q('#outOfStock').length > 0) return false;
  if (q('#add-to-cart-button, #buy-now-button').length > 0) return true;
  return null;
}

function readFeatures({ $, q }: RetailPage): string[] {
  const items = q('#feature-bullets li:not(#replacementPartsFitmentBullet), #featurebullets_feature_div li')
    .toArray()
    .filter((el) => !$(el).hasClass('aok-hidden'))
    .map((el) => textOf($(el)));
  const fromBullets = unique(items.filter((t) => t.length > 0));
  if (fromBullets.length > 0) return fromBullets;
  return unique(
    q('#productFactsDesktopExpander ul li, #productFactsDesktop_feature_div ul li')
      .toArray()
      .map((el) => textOf($(el)))
      .filter((t) => t.length > 0),
  );
}

/**
 * The description: `#productDescription` (or a book's), else the text blocks of the product's A+ content
 * (`#aplus_feature_div` / `#aplus`, not the brand story): its innermost text blocks, without comparison tables and
 * carousel controls.
 */
function readDescription({ $, q }: RetailPage): string | null {
  for (const sel of ['#productDescription', '#bookDescription_feature_div', '#productDescription_feature_div']) {
    const el = q(sel).first().clone();
    if (el.length === 0) continue;
    el.find('h1, h2, h3, .a-expander-prompt').remove();
    const text = textOf(el);
    if (text) return text;
  }
  for (const sel of ['#aplus_feature_div', '#aplus']) {
    const el = q(sel).first();
    if (el.length === 0) continue;
    const blocks = el
      .find('p, h3, h4, li')
      .toArray()
      .filter((b) => $(b).find('p, h3, h4, li').length === 0)
      .filter(
        (b) =>
          $(b).parents('table, .a-carousel-controls, .a-carousel-pagination, #aplusBrandStory_feature_div').length ===
          0,
      )
      .map((b) => textOf($(b)))
      .filter((t) => t.length > 0 && !/^(previous page|next page|read more|\d+)$/i.test(t));
    const text = unique(blocks).join(' ');
    if (text) return text;
  }
  return null;
}

const SOLD_BY = [
  /sold by\s+(.+?)(?:\s+and\s+(?:fulfilled|ships)\b|\.\s|\.$|$)/i,
  /verkauf durch\s+(.+?)(?:\s+und\s+|\.|$)/i,
  /vendu par\s+(.+?)(?:\s+et\s+|\.|$)/i,
];

/** The seller of the buy-box offer: the seller link by id, the merchant-info block, else "Sold by …" wording. */
function readSeller(page: RetailPage): string | null {
  const direct = firstText(page, [
    '#sellerProfileTriggerId',
    '#merchantInfoFeature_feature_div .offer-display-feature-text-message',
    '#tabular-buybox .tabular-buybox-text[tabular-attribute-name="Sold by"]',
  ]);
  if (direct) return direct;
  const info = firstText(page, ['#merchant-info', '#merchantInfo']);
  if (!info) return null;
  if (/ships from and sold by\s+(.+?)\.?$/i.test(info))
    return clean(/ships from and sold by\s+(.+?)\.?$/i.exec(info)?.[1]);
  for (const re of SOLD_BY) {
    const m = re.exec(info);
    if (m) return clean(m[1]);
  }
  return null;
}

/** `500+ bought in past month` → `500+`; `1K+ bought in past month` → `1K+`. */
function readBoughtPastMonth(page: RetailPage): string | null {
  const text = firstText(page, [
    '#social-proofing-faceout-title-tk_bought',
    '#socialProofingAsinFaceout_feature_div .a-text-bold',
  ]);
  const m = /([\d.,]+\s*[KkMm]?\+?)/.exec(text ?? '');
  return m ? m[1].replace(/\s+/g, '') : null;
}
