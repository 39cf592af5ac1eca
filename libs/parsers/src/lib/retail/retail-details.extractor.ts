import type { Cheerio } from 'cheerio';
import type { AnyNode } from 'domhandler';
import { normaliseLocale, parseLocaleCount, parseLocaleDate } from '../locale/index.js';
import { clean, textOf, unique } from './retail-dom.util.js';
import type { RetailPage } from './retail-page.reader.js';

export interface ProductDetails {
  specifications: Record<string, string>;
  best_sellers_rank: { category: string; rank: number }[];
  date_first_available: string | null;
  categories: string[];
}

/** Two-column detail tables, by id first (tech specs, product details, the overview at the top, 2019's pdTab). */
const TABLE_ROWS = [
  '#productDetails_techSpec_section_1 tr',
  '#productDetails_techSpec_section_2 tr',
  '#technicalSpecifications_section_1 tr',
  '#productDetails_detailBullets_sections1 tr',
  '#prodDetails table.prodDetTable tr',
  '#tech table.prodDetTable tr',
  '#prodDetails .pdTab tr',
  '#productOverview_feature_div tr',
];

// Visible words are the last resort: rows are told apart by structure first (rank lists link to /gp/bestsellers,
// review rows hold the star icon, a date row's value is a date and its label names the store).
const BSR_NAME =
  /best\s?sellers?\s?rank|bestseller-rang|meilleures ventes|m[aá]s vendidos|pi[uù] venduti|mais vendidos|売れ筋ランキング/i;
const DATE_NAME =
  /date first available|im angebot von amazon|disponible sur amazon|mise en ligne sur amazon|en amazon\.\w+ desde|disponibile su amazon|first available|取り扱い開始日/i;
const REVIEWS_NAME =
  /customer reviews|kundenrezensionen|commentaires client|opiniones de clientes|recensioni dei clienti|avaliações de clientes|カスタマーレビュー|avg customer review/i;
const WHOLE_DATE = /^\D*\d[\s\S]*\d{4}\D*$|^\d{4}\D\d{1,2}\D\d{1,2}\D?$/;
const BSR_STRUCTURE = 'a[href*="/gp/bestsellers"], .zg_hrsr';
const REVIEWS_STRUCTURE = '.a-icon-star, .a-icon-alt, #acrCustomerReviewText, [data-hook*="rating"]';

/**
 * The product-information tables and bullet lists as `{ name: value }`, plus what is read out of them: best sellers
 * ranks, date first available, and the breadcrumb categories. Rows that are not specifications (customer reviews,
 * ranks) are left out of `specifications`; the first value of a name wins (tech specs before the overview).
 */
export function extractDetails({ $, q }: RetailPage): ProductDetails {
  const locale = normaliseLocale($('html').attr('lang'));
  const pairs: [string, string, Cheerio<AnyNode>][] = [];
  for (const sel of TABLE_ROWS) {
    for (const el of q(sel).toArray()) {
      const cells = $(el).children('th, td').toArray();
      if (cells.length < 2) continue;
      pairs.push([name(textOf($(cells[0]))), textOf($(cells[cells.length - 1])), $(cells[cells.length - 1])]);
    }
  }
  for (const el of q('#detailBullets_feature_div li, #detailBulletsWrapper_feature_div li').toArray()) {
    const li = $(el);
    const bold = li.find('.a-text-bold').first();
    if (bold.length === 0) continue;
    const label = name(textOf(bold));
    const value = clean(textOf(li).slice(textOf(bold).length)).replace(/^[:\s]+/, '');
    if (label && value) pairs.push([label, value, li]);
  }

  const specifications: Record<string, string> = {};
  let bsrText = '';
  let dateText = '';
  for (const [label, value, el] of pairs) {
    if (!label || !value) continue;
    if (el.find(BSR_STRUCTURE).length > 0 || BSR_NAME.test(label)) {
      bsrText ||= value;
      continue;
    }
    if (el.find(REVIEWS_STRUCTURE).length > 0 || REVIEWS_NAME.test(label)) continue;
    // A row whose whole value is a date is the date first available, in any store language.
    if (DATE_NAME.test(label) || (value.length <= 40 && WHOLE_DATE.test(value) && parseLocaleDate(value, locale))) {
      dateText ||= value;
    }
    if (!(label in specifications)) specifications[label] = value;
  }
  if (!bsrText) bsrText = textOf(q('#SalesRank')).replace(/^[^:]*:/, '');

  const categories = q('#wayfinding-breadcrumbs_feature_div li a, #wayfinding-breadcrumbs_container li a')
    .toArray()
    .map((el) => textOf($(el)))
    .filter((t) => t && !/back to results|zurück zu den ergebnissen/i.test(t));

  return {
    specifications,
    best_sellers_rank: parseBestSellersRank(bsrText),
    date_first_available: dateText ? (toIsoDate(dateText, locale) ?? dateText) : null,
    categories: unique(categories),
  };
}

function name(s: string): string {
  return clean(s)
    .replace(/\s*:\s*$/, '')
    .trim();
}

/** A rank: an optional "#", "Nr.", "n.º", "nº", "رقم" before the number, then "位" or a short "in" word (in, en, dans, em, في). */
const RANK = String.raw`(?:#|رقم\s*|Nr\.\s*|n\.?\s*º\s*|n\.\s*)?(\d{1,3}(?:[.,\s]\d{2,3})*|\d+)(?:\s*位\s*|\s+(?:in|en|dans|em|di|w|i|في)\s+)`;

/**
 * `#5 in Mobile Phones (See Top 100 in Mobile Phones) #2 in Screen Protectors` → [{rank 5, …}, {rank 2, …}], and the
 * same in other store languages: `5 842 en Cuisine et Maison`, `Nr. 1.234 in Küche`, `n.º 7 en Hervidores`,
 * `1,234位ホーム&キッチン`. Parenthesised "see top 100" links are dropped first; rank numbers are read as counts.
 */
export function parseBestSellersRank(text: string): { category: string; rank: number }[] {
  const out: { category: string; rank: number }[] = [];
  const body = clean(text.replace(/\([^()]*\)|（[^（）]*）/g, ' '));
  const re = new RegExp(`${RANK}(.+?)(?=\\s+-\\s|\\s*-?\\s*${RANK}|$)`, 'gu');
  for (const m of body.matchAll(re)) {
    const rank = parseLocaleCount(m[1]) ?? 0;
    const category = clean(m[2]).replace(/^[-:\s]+|[-:\s]+$/g, '');
    if (rank > 0 && category) out.push({ category, rank });
  }
  return unique(out, (r) => `${r.rank}|${r.category}`);
}

/** `6 August 2024`, `April 30, 2022`, `30. April 2022`, `30 avril 2022`, `2021/3/12`, `2024-08-06` → `YYYY-MM-DD`. */
export function toIsoDate(text: string, locale?: string): string | undefined {
  return parseLocaleDate(text, locale);
}
