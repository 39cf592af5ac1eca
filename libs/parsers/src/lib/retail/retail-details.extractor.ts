import { clean, textOf, unique } from './retail-dom.util.js';
import type { RetailPage } from './retail-page.js';

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

const BSR_NAME =
  /best\s?sellers?\s?rank|bestseller-rang|meilleures ventes|m[aá]s vendidos|pi[uù] venduti|mais vendidos/i;
const DATE_NAME =
  /date first available|im angebot von amazon|disponible sur amazon|en amazon\.\w+ desde|disponibile su amazon|first available/i;
const REVIEWS_NAME =
  /customer reviews|kundenrezensionen|commentaires client|opiniones de clientes|recensioni dei clienti|avg customer review/i;

/**
 * The product-information tables and bullet lists as `{ name: value }`, plus what is read out of them: best sellers
 * ranks, date first available, and the breadcrumb categories. Rows that are not specifications (customer reviews,
 * ranks) are left out of `specifications`; the first value of a name wins (tech specs before the overview).
 */
export function extractDetails({ $, q }: RetailPage): ProductDetails {
  const pairs: [string, string][] = [];
  for (const sel of TABLE_ROWS) {
    for (const el of q(sel).toArray()) {
      const cells = $(el).children('th, td').toArray();
      if (cells.length < 2) continue;
      pairs.push([name(textOf($(cells[0]))), textOf($(cells[cells.length - 1]))]);
    }
  }
  for (const el of q('#detailBullets_feature_div li, #detailBulletsWrapper_feature_div li').toArray()) {
    const li = $(el);
    const bold = li.find('.a-text-bold').first();
    if (bold.length === 0) continue;
    const label = name(textOf(bold));
    const value = clean(textOf(li).slice(textOf(bold).length)).replace(/^[:\s]+/, '');
    if (label && value) pairs.push([label, value]);
  }

  const specifications: Record<string, string> = {};
  let bsrText = '';
  let dateText = '';
  for (const [label, value] of pairs) {
    if (!label || !value) continue;
    if (BSR_NAME.test(label)) {
      bsrText ||= value;
      continue;
    }
    if (REVIEWS_NAME.test(label)) continue;
    if (DATE_NAME.test(label)) dateText ||= value;
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
    date_first_available: dateText ? (toIsoDate(dateText) ?? dateText) : null,
    categories: unique(categories),
  };
}

function name(s: string): string {
  return clean(s)
    .replace(/\s*:\s*$/, '')
    .trim();
}

/** `#5 in Mobile Phones (See Top 100 in Mobile Phones) #2 in Screen Protectors` → [{rank 5, …}, {rank 2, …}] */
export function parseBestSellersRank(text: string): { category: string; rank: number }[] {
  const out: { category: string; rank: number }[] = [];
  const re =
    /(?:#|Nr\.\s*|n\.\s*|nº\s*)([\d][\d.,\s]*?)\s+(?:in|en|dans|em)\s+(.+?)(?=\s*\(|\s*(?:#|Nr\.\s*|n\.\s+|nº\s*)\d|$)/g;
  for (const m of clean(text).matchAll(re)) {
    const rank = Number(m[1].replace(/\D/g, ''));
    const category = clean(m[2]);
    if (rank > 0 && category) out.push({ category, rank });
  }
  return unique(out, (r) => `${r.rank}|${r.category}`);
}

const MONTHS: Record<string, number> = {
  jan: 1,
  janu: 1,
  janv: 1,
  ene: 1,
  gen: 1,
  jän: 1,
  feb: 2,
  fév: 2,
  fev: 2,
  mar: 3,
  mär: 3,
  mrz: 3,
  apr: 4,
  avr: 4,
  abr: 4,
  may: 5,
  mai: 5,
  mag: 5,
  jun: 6,
  jui: 6,
  giu: 6,
  jul: 7,
  lug: 7,
  aug: 8,
  aoû: 8,
  aou: 8,
  ago: 8,
  sep: 9,
  set: 9,
  oct: 10,
  okt: 10,
  ott: 10,
  nov: 11,
  dec: 12,
  dez: 12,
  déc: 12,
  dic: 12,
};

function month(word: string): number | undefined {
  const w = word.toLowerCase().replace(/\./g, '');
  if (w.startsWith('juil')) return 7;
  if (w.startsWith('juin')) return 6;
  return MONTHS[w.slice(0, 4)] ?? MONTHS[w.slice(0, 3)];
}

/** `6 August 2024`, `April 30, 2022`, `30. April 2022`, `30 avril 2022`, `2024-08-06` → `YYYY-MM-DD`. */
export function toIsoDate(text: string): string | undefined {
  const t = clean(text);
  const pad = (n: number) => String(n).padStart(2, '0');
  const iso = /(\d{4})-(\d{2})-(\d{2})/.exec(t);
  if (iso) return `${iso[1]}-${iso[2]}-${iso[3]}`;
  const dmy = /(\d{1,2})\.?\s+(?:de\s+)?([^\s\d,.]+)\.?,?\s+(?:de\s+)?(\d{4})/.exec(t);
  if (dmy) {
    const m = month(dmy[2]);
    if (m) return `${dmy[3]}-${pad(m)}-${pad(Number(dmy[1]))}`;
  }
  const mdy = /([^\s\d,.]+)\.?\s+(\d{1,2}),?\s+(\d{4})/.exec(t);
  if (mdy) {
    const m = month(mdy[1]);
    if (m) return `${mdy[3]}-${pad(m)}-${pad(Number(mdy[2]))}`;
  }
  return undefined;
}
