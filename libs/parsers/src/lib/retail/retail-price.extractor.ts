import type { Cheerio } from 'cheerio';
import type { AnyNode } from 'domhandler';
import type { Money } from '@trawl/contracts';
import { parseMoney } from './money.parser.js';
import { clean, isRecord, textOf, tryJson } from './retail-dom.util.js';
import type { RetailPage } from './retail-page.reader.js';

/**
 * The buy-box price blocks, newest layout first (2022+ core price, 2020–2022 apex table, pre-2021 price blocks), then
 * wider buy-box containers as a last resort. Strike-through prices are skipped (see `priceText`).
 */
const PRICE_TO_PAY = [
  '#corePriceDisplay_desktop_feature_div .priceToPay',
  '#corePriceDisplay_desktop_feature_div .apexPriceToPay',
  '#corePrice_desktop .apexPriceToPay',
  '#corePrice_feature_div .a-price',
  '#apex_desktop .priceToPay',
  '#corePrice_mobile_feature_div .priceToPay',
  '#corePrice_mobile_feature_div .a-price',
  '#apex_mobile .priceToPay',
  '#priceblock_dealprice',
  '#priceblock_saleprice',
  '#priceblock_ourprice',
  '#priceblock_pospromoprice',
  '#price_inside_buybox',
  '#newBuyBoxPrice',
  '#kindle-price',
  '#buyNewSection .offer-price',
  '#tp_price_block_total_price_ww .a-price',
  '#apex_offerDisplay_desktop .a-price',
  '#sns-base-price',
  '#price .a-color-price',
  '#corePriceDisplay_desktop_feature_div .a-price',
  '#qualifiedBuybox .a-price',
  '#buybox .a-price',
  '#price',
];

const LIST_PRICE = [
  '#corePriceDisplay_desktop_feature_div .basisPrice .a-price',
  '#corePriceDisplay_desktop_feature_div .a-price[data-a-strike="true"]',
  '#corePrice_desktop .a-price[data-a-strike="true"]',
  '#apex_desktop .a-price[data-a-strike="true"]',
  '#listPrice',
  '#priceblock_ourprice_row .priceBlockStrikePriceString',
  '.priceBlockStrikePriceString',
];

/** Hidden form inputs that carry the buy-box price (present even when scripts were stripped). */
const PRICE_INPUTS: readonly [string, string | undefined][] = [
  ['#twister-plus-price-data-price', '#twister-plus-price-data-price-unit'],
  ['#attach-base-product-price', '#attach-base-product-currency-symbol'],
  [
    'input[name="items[0.base][customerVisiblePrice][amount]"]',
    'input[name="items[0.base][customerVisiblePrice][currencyCode]"]',
  ],
];

/**
 * The price to pay and the list (strike-through) price. Layers: the buy-box price data Amazon embeds as JSON
 * (`.twister-plus-buying-options-price-data`), then the price blocks by id, then hidden form inputs. Prices inside
 * variation swatches or carousels are never read: every selector is anchored in a buy-box container.
 */
export function extractPrices(page: RetailPage, pageUrl: string): { price: Money | null; list_price: Money | null } {
  const price =
    fromPriceData(page, pageUrl) ?? fromBlocks(page, PRICE_TO_PAY, pageUrl, true) ?? fromInputs(page, pageUrl);
  let listPrice = fromBlocks(page, LIST_PRICE, pageUrl, false);
  if (listPrice && price && (listPrice.value <= price.value || listPrice.currency !== price.currency)) listPrice = null;
  return { price, list_price: listPrice };
}

function fromPriceData({ $, q }: RetailPage, pageUrl: string): Money | null {
  const offers: Record<string, unknown>[] = [];
  for (const el of q('.twister-plus-buying-options-price-data').toArray()) {
    const data = tryJson($(el).text().trim());
    if (!isRecord(data)) continue;
    for (const group of Object.values(data)) {
      if (Array.isArray(group)) offers.push(...group.filter((o) => isRecord(o) && typeof o.priceAmount === 'number'));
    }
  }
  // The new-item offer is the buy box's price; other buying options (used, renewed) only when there is none.
  const offer = offers.find((o) => o.buyingOptionType === 'NEW') ?? offers[0];
  if (!offer || typeof offer.priceAmount !== 'number') return null;
  const raw = typeof offer.displayPrice === 'string' ? clean(offer.displayPrice) : String(offer.priceAmount);
  const symbol = typeof offer.currencySymbol === 'string' ? offer.currencySymbol : undefined;
  const money = parseMoney(raw, { pageUrl, currencyHint: symbol });
  return money ? { ...money, value: offer.priceAmount } : null;
}

function fromBlocks({ $, q }: RetailPage, selectors: readonly string[], pageUrl: string, toPay: boolean): Money | null {
  for (const sel of selectors) {
    for (const el of q(sel).toArray()) {
      if (toPay && $(el).attr('data-a-strike') === 'true') continue;
      const money = parseMoney(priceText($(el)), { pageUrl });
      if (money && money.value > 0) return money;
    }
  }
  return null;
}

function fromInputs({ q }: RetailPage, pageUrl: string): Money | null {
  for (const [valueSel, unitSel] of PRICE_INPUTS) {
    const value = clean(q(valueSel).first().attr('value'));
    if (!value) continue;
    const unit = unitSel ? clean(q(unitSel).first().attr('value')) : '';
    const money = parseMoney(value, { pageUrl, currencyHint: unit || undefined });
    if (money && money.value > 0) return { ...money, raw: unit ? `${unit}${value}` : value };
  }
  return null;
}

/** A price element's shown text: its screen-reader copy when filled, else the visible parts. */
function priceText(el: Cheerio<AnyNode>): string {
  const offscreen = textOf(el.find('.a-offscreen').first());
  if (offscreen) return offscreen;
  const visible = textOf(el.find('[aria-hidden="true"]').first());
  if (visible) return visible;
  const whole = textOf(el.find('.a-price-whole').first());
  if (whole) {
    const symbol = textOf(el.find('.a-price-symbol').first());
    const fraction = textOf(el.find('.a-price-fraction').first());
    return `${symbol}${whole.replace(/\D/g, '')}${fraction ? '.' + fraction.replace(/\D/g, '') : ''}`;
  }
  return textOf(el);
}
