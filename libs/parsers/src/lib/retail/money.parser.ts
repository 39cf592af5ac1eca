import type { Money } from '@trawl/contracts';
import { numberByShape } from '../locale/locale-number.parser.js';

/** Currency symbols (longest first when matching) → ISO 4217. `$` depends on the store, see `dollarCurrency`. */
const SYMBOLS: readonly [string, string][] = [
  ['US$', 'USD'],
  ['CDN$', 'CAD'],
  ['C$', 'CAD'],
  ['A$', 'AUD'],
  ['S$', 'SGD'],
  ['R$', 'BRL'],
  ['MX$', 'MXN'],
  ['د.إ', 'AED'],
  ['ر.س', 'SAR'],
  ['ج.م', 'EGP'],
  ['zł', 'PLN'],
  ['kr', 'SEK'],
  ['TL', 'TRY'],
  ['₺', 'TRY'],
  ['€', 'EUR'],
  ['£', 'GBP'],
  ['₹', 'INR'],
  ['¥', 'JPY'],
  ['￥', 'JPY'],
  ['$', 'USD'],
];

/** ISO 4217 codes, so a word such as `NEW` in a price text is not read as a currency. */
const ISO_CODES = new Set(Intl.supportedValuesOf('currency'));

/** Amazon store host suffix → the currency its bare `$`/`¥`/`kr` means. */
const STORE_CURRENCY: readonly [string, string][] = [
  ['.com.au', 'AUD'],
  ['.com.mx', 'MXN'],
  ['.com.br', 'BRL'],
  ['.ca', 'CAD'],
  ['.sg', 'SGD'],
  ['.cn', 'CNY'],
  ['.se', 'SEK'],
  ['.ae', 'AED'],
  ['.sa', 'SAR'],
  ['.eg', 'EGP'],
  ['.in', 'INR'],
  ['.co.uk', 'GBP'],
  ['.co.jp', 'JPY'],
  ['.pl', 'PLN'],
  ['.com.tr', 'TRY'],
];

/** The currency a store prices in, from its host (`www.amazon.ae` → AED); undefined when unknown or `.com`. */
export function storeCurrency(url: string | undefined): string | undefined {
  let host = '';
  try {
    host = new URL(url ?? '').hostname.toLowerCase();
  } catch {
    return undefined;
  }
  return STORE_CURRENCY.find(([suffix]) => host.endsWith(suffix))?.[1];
}

/** The ISO code a symbol or code stands for, given the store (a bare `$` on amazon.ca is CAD). */
export function currencyOf(symbolOrCode: string, pageUrl?: string): string | undefined {
  const s = symbolOrCode.trim();
  if (ISO_CODES.has(s)) return s;
  const hit = SYMBOLS.find(([sym]) => sym === s);
  if (!hit) return undefined;
  const store = storeCurrency(pageUrl);
  if (hit[0] === '$' && store && ['AUD', 'MXN', 'CAD', 'SGD'].includes(store)) return store;
  if (hit[0] === '¥' && store === 'CNY') return 'CNY';
  return hit[1];
}

/**
 * Parses a displayed amount: `1,234.56`, `1.234,56`, `1 234,56`, `26,00`, `1,234` (thousands), `30.99`.
 * The last separator is the decimal mark unless it is followed by exactly three digits and is the only one.
 */
export function parseAmount(text: string): number | undefined {
  const m = /\d[\d.,\s\u00a0\u202f']*/.exec(text);
  if (!m) return undefined;
  return numberByShape(m[0].replace(/[\s\u00a0\u202f']/g, '').replace(/[.,]+$/, ''));
}

/**
 * Reads a price as shown (`AED 30.99`, `$9.98`, `29,99 €`, `EUR 1.299,00`) into `{ value, currency, raw }`.
 * `currencyHint` (a symbol or code from page data) and the page URL's store decide when the text has no symbol.
 */
export function parseMoney(
  raw: string | undefined,
  options: { pageUrl?: string; currencyHint?: string } = {},
): Money | null {
  const text = (raw ?? '').replace(/\s+/g, ' ').trim();
  if (!text || !/\d/.test(text)) return null;
  const value = parseAmount(text);
  if (value === undefined) return null;
  const currency =
    detectCurrency(text, options.pageUrl) ??
    (options.currencyHint ? currencyOf(options.currencyHint, options.pageUrl) : undefined) ??
    storeCurrency(options.pageUrl) ??
    'USD';
  return { value, currency, raw: text };
}

function detectCurrency(text: string, pageUrl?: string): string | undefined {
  // A code next to the amount (`AED 30.99`, `30,99 EUR`) wins; a capitalised word elsewhere (`TOP DEAL`) does not.
  const adjacent = /(?:^|[^A-Za-z])([A-Z]{3})\s?\d|\d\s?([A-Z]{3})(?![A-Za-z])/.exec(text);
  const code = adjacent?.[1] ?? adjacent?.[2];
  if (code && ISO_CODES.has(code)) return code;
  for (const [sym] of SYMBOLS) {
    if (text.includes(sym)) return currencyOf(sym, pageUrl);
  }
  return undefined;
}
