// Simulated Amazon upstream: for any ASIN a product page shaped like the real 2025 desktop page (the same element ids,
// the buy-box price data JSON, the image block's `colorImages` and the twister's `dimensionValuesDisplayData` in
// scripts, the detail tables). Everything is derived from the ASIN by hashing, so the same ASIN always gets the same
// page. Pure: no I/O, no clock, nothing imported from the parsers.
import { createHash } from 'node:crypto';
import {
  formatDate,
  formatNumber,
  formatPrice,
  type SimLocale,
  type SimLocaleTag,
  simLocale,
} from './sim-locales.constants.js';

export type SimStore = 'com' | 'ae';

export interface SimRetailOptions {
  /** Which store the page imitates (currency, language, date style); by default chosen from the ASIN. */
  store?: SimStore;
  /** Render the page of this locale's store instead (amazon.de for de-DE, amazon.co.jp for ja-JP, …): its words,
   * currency and number and date formats. en-US is the amazon.com page. */
  locale?: SimLocaleTag;
}

/** Prices of a store whose currency unit is worth much less than a dollar are scaled to look like real ones. */
const PRICE_SCALE: Record<string, number> = { JPY: 150, INR: 80 };

const ASIN_RE = /^[A-Z0-9]{10}$/;

/** The ASIN of a product path (`/dp/<ASIN>`, `/<slug>/dp/<ASIN>`, `/gp/product/<ASIN>`), or undefined. */
export function asinOfProductPath(pathname: string): string | undefined {
  const m = /\/(?:dp|gp\/product)\/([A-Za-z0-9]{10})(?:[/?]|$)/.exec(pathname);
  return m ? m[1].toUpperCase() : undefined;
}

interface Kind {
  noun: string;
  path: string[];
  specs: (r: Rng) => [string, string][];
  features: string[];
  dimension: 'Colour' | 'Size';
  values: string[];
  price: [number, number];
}

const KINDS: Kind[] = [
  {
    noun: 'Electric Kettle',
    path: ['Kitchen', 'Small Appliances', 'Kettles', 'Electric Kettles'],
    specs: (r) => [
      ['Capacity', `${r.pick(['1.2', '1.5', '1.7'])} Litres`],
      ['Power / Wattage', `${r.pick([1800, 2200, 3000])} watts`],
      ['Material', 'Stainless Steel'],
    ],
    features: [
      'Boils a full jug in under four minutes',
      'Double-wall body stays cool to the touch',
      'Auto shut-off and boil-dry protection',
      '360° swivel base with cord storage',
      'Removable, washable limescale filter',
    ],
    dimension: 'Colour',
    values: ['Black', 'Silver', 'Blue', 'Red', 'Cream'],
    price: [29, 249],
  },
  {
    noun: 'Wireless Headphones',
    path: ['Electronics', 'Headphones', 'Over-Ear Headphones'],
    specs: (r) => [
      ['Connectivity Technology', 'Bluetooth 5.3'],
      ['Battery Life', `${r.int(20, 60)} Hours`],
      ['Noise Control', 'Active Noise Cancellation'],
    ],
    features: [
      'Hybrid active noise cancelling blocks up to 95% of ambient noise',
      'Up to 60 hours of playback on one charge',
      'Multipoint pairing with two devices at once',
      'Memory-foam ear cushions for all-day comfort',
      'Foldable design with hard travel case',
    ],
    dimension: 'Colour',
    values: ['Black', 'White', 'Navy', 'Sage Green'],
    price: [39, 399],
  },
  {
    noun: 'LED Strip Lights',
    path: ['Tools & Home Improvement', 'Lighting & Ceiling Fans', 'Novelty Lighting', 'LED Strip Lights'],
    specs: (r) => [
      ['Light Source Type', 'LED'],
      ['Voltage', `${r.pick([5, 12, 24])} Volts`],
      ['Controller Type', 'App Control'],
    ],
    features: [
      'Music sync: colours change with the beat',
      'App and remote control with 16 million colours',
      'Cuttable every three LEDs, strong adhesive backing',
      'Timer and scene modes for every room',
      'Low-voltage, cool-running and energy efficient',
    ],
    dimension: 'Size',
    values: ['16.4ft', '32.8ft', '50ft', '100ft'],
    price: [9, 59],
  },
  {
    noun: 'Screen Protector 3-Pack',
    path: ['Electronics', 'Mobile Phones & Communication', 'Accessories', 'Screen Protectors'],
    specs: () => [
      ['Material', 'Tempered Glass'],
      ['Item hardness', '9H'],
      ['Special features', 'Scratch Resistant'],
    ],
    features: [
      '9H tempered glass resists scratches and drops',
      'Alignment frame for a bubble-free install',
      'Case-friendly edges',
      'Oleophobic coating repels fingerprints',
      'Full touch sensitivity and HD clarity',
    ],
    dimension: 'Size',
    values: ['6.1-Inch', '6.3-Inch', '6.7-Inch', '6.9-Inch'],
    price: [7, 45],
  },
  {
    noun: 'Hiking Backpack 40L',
    path: ['Sports & Outdoors', 'Outdoor Recreation', 'Camping & Hiking', 'Backpacks'],
    specs: (r) => [
      ['Capacity', '40 Litres'],
      ['Item Weight', `${r.int(900, 1500)} Grams`],
      ['Material', 'Ripstop Nylon'],
    ],
    features: [
      'Water-resistant ripstop nylon with rain cover',
      'Ventilated back panel and padded hip belt',
      'Hydration sleeve and ten pockets',
      'Adjustable torso length',
      'Compression straps keep loads stable',
    ],
    dimension: 'Colour',
    values: ['Charcoal', 'Olive', 'Orange', 'Sky Blue'],
    price: [25, 180],
  },
];

const BRANDS = [
  'Acme',
  'Nordvik',
  'Lumora',
  'Kestrel',
  'Brightway',
  'Solenne',
  'Tarkon',
  'Veloria',
  'Quillon',
  'Harbin & Co',
];
const SELLERS = ['Retail Direct', 'Gulf Trading LLC', 'Northwind Goods', 'Bluebird Store', 'Prime Outlet Co'];
const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const ASIN_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** A small deterministic generator seeded from text (sha256 blocks, re-hashed as needed). */
class Rng {
  private pool: Buffer;
  private at = 0;
  private round = 0;
  constructor(private readonly seed: string) {
    this.pool = createHash('sha256').update(seed).digest();
  }
  next(): number {
    if (this.at + 4 > this.pool.length) {
      this.pool = createHash('sha256').update(`${this.seed}#${++this.round}`).digest();
      this.at = 0;
    }
    const n = this.pool.readUInt32BE(this.at);
    this.at += 4;
    return n / 0x1_0000_0000;
  }
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const grouped = (n: number) => n.toLocaleString('en-US');
const money = (n: number) => n.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/**
 * A realistic Amazon-like product page for `asin` (any 10-character ASIN; others are upper-cased and padded):
 * title, byline, rating and review count, "bought in past month", the buy-box price (embedded JSON and the core
 * price block, with a list price on some items), availability, seller, image gallery, variations, feature bullets,
 * description, breadcrumbs, detail tables with best sellers ranks and date first available.
 */
export function retailProductPage(asin: string, options: SimRetailOptions = {}): string {
  const id = ASIN_RE.test(asin)
    ? asin
    : asin
        .toUpperCase()
        .replace(/[^A-Z0-9]/g, '')
        .padEnd(10, '0')
        .slice(0, 10);
  const r = new Rng(`retail:${id}`);
  const L: SimLocale | undefined = options.locale && options.locale !== 'en-US' ? simLocale(options.locale) : undefined;
  const store: SimStore = options.locale ? 'com' : (options.store ?? (r.next() < 0.5 ? 'com' : 'ae'));
  const ae = store === 'ae' && !L;
  const host = L ? L.retail.host : ae ? 'www.amazon.ae' : 'www.amazon.com';
  const R = L?.retail;
  const tag = L?.tag ?? (ae ? 'en-AE' : 'en-US');
  const kind = r.pick(KINDS);
  const brand = r.pick(BRANDS);
  const seller = `${brand} ${r.pick(SELLERS)}`;
  const values = kind.values.slice(0, r.int(2, kind.values.length));
  const mine = r.int(0, values.length - 1);
  const variantAsins = values.map((_, i) => (i === mine ? id : variantAsin(id, i)));
  const title = `${brand} ${kind.noun}, ${kind.features[0]}, ${values[mine]}`;
  const rating = r.int(30, 49) / 10;
  const reviews = r.int(3, 48_000);
  const bought = r.pick(['50+', '100+', '400+', '1K+', '5K+']);
  const scale = R ? (PRICE_SCALE[R.currency] ?? 1) : 1;
  const baseValue = Math.round((kind.price[0] + r.next() * (kind.price[1] - kind.price[0])) * 100) / 100;
  const priceValue = R?.currency === 'JPY' ? Math.round(baseValue * scale) : Math.round(baseValue * scale * 100) / 100;
  const listDraw = r.next();
  const listValue =
    listDraw < 0.4
      ? R?.currency === 'JPY'
        ? Math.round(priceValue * 1.25)
        : Math.round(priceValue * 1.25) + 0.99
      : undefined;
  const localPrice = (n: number): string => formatPrice(tag, R?.currency ?? 'USD', n);
  const currencySymbol = R
    ? (new Intl.NumberFormat(tag, { style: 'currency', currency: R.currency })
        .formatToParts(1)
        .find((x) => x.type === 'currency')?.value ?? R.currency)
    : '';
  const symbol = R ? currencySymbol : ae ? 'AED' : '$';
  const shown = (n: number) => (R ? localPrice(n) : ae ? `AED ${money(n)}` : `$${money(n)}`);
  const stockDraw = r.next();
  const left = stockDraw < 0.8 ? 0 : r.int(2, 9);
  const stock = R ? R.inStock : left === 0 ? 'In Stock' : `Only ${left} left in stock - order soon.`;
  const num = (n: number): string => (R ? formatNumber(tag, n) : grouped(n));
  const decimalSep = R
    ? (new Intl.NumberFormat(tag).formatToParts(1.5).find((x) => x.type === 'decimal')?.value ?? '.')
    : '.';
  const fraction = R?.currency === 'JPY' ? '' : money(priceValue).slice(-2);
  const year = r.int(2019, 2025);
  const month = r.int(0, 11);
  const day = r.int(1, 28);
  const firstAvailable = R
    ? formatDate(tag, year, month, day)
    : ae
      ? `${day} ${MONTHS[month]} ${year}`
      : `${MONTHS[month]} ${day}, ${year}`;
  const ranks = [r.int(1_000, 90_000), r.int(1, 400)];
  const ratingText = R ? formatNumber(tag, rating, 1) : String(rating);
  const outOf5 = R ? R.outOf5(ratingText) : `${rating} out of 5 stars`;
  const imageIds = Array.from({ length: r.int(4, 7) }, (_, i) => imageId(id, i));
  const img = (iid: string, mod: string) => `https://m.media-amazon.com/images/I/${iid}.${mod}.jpg`;
  const specs: [string, string][] = [
    ['Brand', brand],
    ['Model Number', `${brand.slice(0, 2).toUpperCase()}-${r.int(100, 999)}`],
    ...kind.specs(r),
    [kind.dimension === 'Colour' ? 'Colour' : 'Size', values[mine]],
  ];
  const features = kind.features.map((f, i) => (i === 0 ? `${f}.` : `${f}: built by ${brand} for everyday use.`));
  const priceData = JSON.stringify({
    desktop_buybox_group_1: [
      {
        displayPrice: shown(priceValue),
        priceAmount: priceValue,
        currencySymbol: symbol,
        integerValue: num(Math.floor(priceValue)),
        decimalSeparator: decimalSep,
        fractionalValue: fraction,
        symbolPosition: 'left',
        hasSpace: ae,
        offerListingId: `sim-${id}`,
        locale: tag,
        buyingOptionType: 'NEW',
      },
    ],
  });
  const colorImages = JSON.stringify(
    imageIds.map((iid, i) => ({
      hiRes: img(iid, '_AC_SL1500_'),
      thumb: img(iid, '_AC_US40_'),
      large: img(iid, '_AC_'),
      main: { [img(iid, '_AC_SX679_')]: [679, 679] },
      variant: i === 0 ? 'MAIN' : `PT0${i}`,
    })),
  );
  const dimensionValues = JSON.stringify(Object.fromEntries(variantAsins.map((a, i) => [a, [values[i]]])));
  const dynamic = esc(
    JSON.stringify({ [img(imageIds[0], '_AC_SX522_')]: [522, 522], [img(imageIds[0], '_AC_SX679_')]: [679, 679] }),
  );
  const row = (name: string, value: string) =>
    `<tr><th class="a-color-secondary a-size-base prodDetSectionEntry"> ${esc(name)} </th><td class="a-size-base prodDetAttrValue"> &lrm;${esc(value)} </td></tr>`;

  return `<!doctype html>
<html lang="${R ? R.htmlLang : ae ? 'en-ae' : 'en-us'}" dir="${L?.dir ?? 'ltr'}" class="a-no-js">
<head>
<meta charset="utf-8">
<title>${esc(title)} : ${R ? esc(host.replace(/^www\.amazon/, 'Amazon')) : `Amazon.${ae ? 'ae' : 'com'}`}: ${esc(kind.path[0])}</title>
<link rel="canonical" href="https://${host}/${esc(brand.replace(/\W+/g, '-'))}-${esc(kind.noun.replace(/\W+/g, '-'))}/dp/${id}">
<style>.a-price-whole { font-size: 28px; }</style>
</head>
<body>
<div id="a-page"><div id="dp" class="${tag.replace('-', '_')}"><div id="dp-container" class="a-container">
<div id="wayfinding-breadcrumbs_feature_div" class="celwidget"><ul class="a-unordered-list a-horizontal a-size-small">
${kind.path.map((c, i) => `${i ? '<li class="a-breadcrumb-divider"><span class="a-list-item a-color-tertiary">›</span></li>' : ''}<li><span class="a-list-item"><a class="a-link-normal a-color-tertiary" href="/b?node=${1000 + i}">${esc(c)}</a></span></li>`).join('\n')}
</ul></div>
<div id="leftCol"><div id="imageBlock_feature_div" data-csa-c-asin="${id}">
<div id="altImages"><ul>${imageIds.map((iid) => `<li class="a-spacing-small item imageThumbnail"><img alt="" src="${img(iid, '_AC_US40_')}"></li>`).join('')}</ul></div>
<div id="imgTagWrapperId" class="imgTagWrapper"><img alt="${esc(title)}" src="${img(imageIds[0], '_AC_SX300_SY300_QL70_ML2_')}" data-old-hires="${img(imageIds[0], '_AC_SL1500_')}" class="a-dynamic-image" id="landingImage" data-a-dynamic-image="${dynamic}"></div>
</div>
<script type="text/javascript">
P.when('A').register("ImageBlockATF", function(A){
  var data = {
    'colorImages': { 'initial': ${colorImages}},
    'colorToAsin': {'initial': {}},
    'holderRatio': 1.0
  };
  A.trigger('P.AboveTheFold');
  return data;
});
</script></div>
<div id="centerCol">
<div id="titleSection"><h1 id="title" class="a-size-large a-spacing-none"><span id="productTitle" class="a-size-large product-title-word-break">        ${esc(title)}       </span></h1></div>
<div id="bylineInfo_feature_div"><a id="bylineInfo" class="a-link-normal" href="/stores/${esc(brand.replace(/\W+/g, ''))}/page/${id}">${esc(R ? R.visitStore(brand) : `Visit the ${brand} Store`)}</a></div>
<div id="averageCustomerReviews_feature_div"><div id="averageCustomerReviews" data-asin="${id}">
<span id="acrPopover" class="reviewCountTextLinkedHistogram noUnderline" title="${esc(outOf5)}"><span class="a-size-base a-color-base">${ratingText}</span><i class="a-icon a-icon-star"><span class="a-icon-alt">${esc(outOf5)}</span></i></span>
<a id="acrCustomerReviewLink" class="a-link-normal" href="#customerReviews"><span id="acrCustomerReviewText" aria-label="${num(reviews)} ${esc(R ? R.ratings : 'Reviews')}" class="a-size-small">(${num(reviews)})</span></a>
</div></div>
<div id="socialProofingAsinFaceout_feature_div"><span id="social-proofing-faceout-title-tk_bought" class="a-text-bold">${bought} ${R ? '' : 'bought'}</span><span> ${esc(R ? R.bought : 'in past month')}</span></div>
<div id="apex_desktop" data-csa-c-asin="${id}">
<div id="corePriceDisplay_desktop_feature_div" class="celwidget">
<span class="a-price aok-align-center reinventPricePriceToPayMargin priceToPay" data-a-size="xl"><span class="a-offscreen">${shown(priceValue)}</span><span aria-hidden="true"><span class="a-price-symbol">${symbol}</span><span class="a-price-whole">${num(Math.floor(priceValue))}${fraction ? `<span class="a-price-decimal">${decimalSep}</span>` : ''}</span>${fraction ? `<span class="a-price-fraction">${fraction}</span>` : ''}</span></span>
${listValue ? `<span class="a-size-small a-color-secondary aok-align-center basisPrice">${R ? '' : 'List Price: '}<span class="a-price a-text-price" data-a-size="s" data-a-strike="true"><span class="a-offscreen">${shown(listValue)}</span><span aria-hidden="true">${shown(listValue)}</span></span></span>` : ''}
</div>
<div class="a-section aok-hidden twister-plus-buying-options-price-data">${esc(priceData)}</div>
</div>
<div id="twister_feature_div"><div id="inline-twister-row-${kind.dimension === 'Colour' ? 'color' : 'size'}_name" class="a-section">
<span id="inline-twister-expanded-dimension-text-${kind.dimension === 'Colour' ? 'color' : 'size'}_name">${esc(values[mine])}</span><ul>
${variantAsins.map((a, i) => `<li data-asin="${a}" class="swatch-list-item-text inline-twister-swatch"><span class="a-button-text"><span class="swatch-title-text-display">${esc(values[i])}</span></span></li>`).join('\n')}
</ul></div></div>
<script type="a-state" data-a-state="{&quot;key&quot;:&quot;twister-js-init-dpx-data&quot;}">{"currentAsin" : "${id}", "dimensionValuesDisplayData" : ${dimensionValues}, "num_total_variations" : ${values.length}}</script>
<div id="featurebullets_feature_div"><div id="feature-bullets" class="a-section a-spacing-medium"><h1 class="a-size-base-plus a-text-bold">${esc(R ? R.about : 'About this item')}</h1><ul class="a-unordered-list a-vertical a-spacing-mini">
${features.map((f) => `<li class="a-spacing-mini"><span class="a-list-item"> ${esc(f)} </span></li>`).join('\n')}
</ul></div></div>
</div>
<div id="rightCol"><div id="buybox">
<div id="availability" class="a-section a-spacing-base"><span class="a-size-medium a-color-success"> ${stock} </span></div>
<input type="hidden" id="ASIN" name="ASIN" value="${id}">
<div id="merchantInfoFeature_feature_div"><div class="offer-display-feature-label"><span class="a-size-small a-color-tertiary">${esc(R ? R.soldBy : 'Sold by')}</span></div>
<span class="a-size-small offer-display-feature-text-message"><a id="sellerProfileTriggerId" href="/gp/help/seller/at-a-glance.html/ref=dp_merchant_link?ie=UTF8&amp;seller=A${id.slice(2)}SIM&amp;asin=${id}">${esc(seller)}</a></span></div>
<span class="a-button a-button-primary"><input id="add-to-cart-button" name="submit.add-to-cart" type="submit" value="${esc(R ? R.addToCart : 'Add to Cart')}"></span>
</div></div>
<div id="productDescription_feature_div"><div id="productDescription" class="a-section a-spacing-small"><p><span>The ${esc(brand)} ${esc(kind.noun.toLowerCase())} is designed for people who want dependable gear without the fuss. ${esc(features[1])}</span></p></div></div>
<div id="prodDetails" class="a-section">
<table id="productDetails_techSpec_section_1" class="a-keyvalue prodDetTable" role="presentation">
${specs.map(([n, v]) => row(n, v)).join('\n')}
</table>
<table id="productDetails_detailBullets_sections1" class="a-keyvalue prodDetTable" role="presentation">
${row('ASIN', id)}
<tr><th class="a-color-secondary a-size-base prodDetSectionEntry"> ${esc(R ? R.reviewsRow : 'Customer Reviews')} </th><td><span class="a-icon-alt">${esc(outOf5)}</span> ${num(reviews)} ${esc(R ? R.ratings : 'ratings')}</td></tr>
<tr><th class="a-color-secondary a-size-base prodDetSectionEntry"> ${esc(R ? R.bsrRow : 'Best Sellers Rank')} </th><td><span><ul class="a-unordered-list a-nostyle a-vertical zg_hrsr">
<li><span class="a-list-item"> ${R ? esc(R.rank(num(ranks[0]), kind.path[0])) : `#${grouped(ranks[0])} in ${esc(kind.path[0])}`} (<a href="/gp/bestsellers">${R ? '' : 'See '}Top 100 ${R ? '' : 'in '}${esc(kind.path[0])}</a>) </span></li>
<li><span class="a-list-item"> ${R ? esc(R.rank(num(ranks[1]), '')) : `#${grouped(ranks[1])} in `}<a href="/gp/bestsellers/1">${esc(kind.path[kind.path.length - 1])}</a></span></li>
</ul></span></td></tr>
${row(R ? R.dateRow : 'Date First Available', firstAvailable)}
</table>
</div>
</div></div></div>
</body>
</html>
`;
}

function hashChars(seed: string, length: number): string {
  const digest = createHash('sha256').update(seed).digest();
  return Array.from({ length }, (_, i) => ASIN_CHARS[digest[i] % ASIN_CHARS.length]).join('');
}

/** A sibling variation's ASIN, derived from the product's. */
function variantAsin(asin: string, i: number): string {
  return `B0${hashChars(`variant:${asin}:${i}`, 8)}`;
}

function imageId(asin: string, i: number): string {
  return `${i === 0 ? '71' : '61'}${hashChars(`image:${asin}:${i}`, 7)}L`;
}
