// Numbers as a locale writes them, read with the locale data Node ships (full ICU): the decimal and group separators
// come from `Intl.NumberFormat(locale).formatToParts`, never from a pattern per language. Without a locale (or when
// the text contradicts it) the reading falls back to the shape of the number: the last separator is the decimal mark
// unless it is followed by exactly three digits and is the only one.

/** Spaces written as group separators: space, no-break space, narrow no-break space, thin space, apostrophes. */
const SPACE_GROUPS = /[\s\u00a0\u202f\u2009'\u2019]/g;
/** A number as written: digits with separators between them (`1,23,456.5`, `12 345`, `4,5`). */
const NUMBER_TOKEN = /\d(?:[\d.,\u00a0\u202f\u2009'\u2019 ]*\d)?/;

export interface NumberSymbols {
  decimal: string;
  group: string;
}

const symbolCache = new Map<string, NumberSymbols>();

/** The canonical BCP 47 tag for a page's `lang` (`pt_BR` → `pt-BR`), or undefined when ICU does not know it. */
export function normaliseLocale(lang: string | undefined): string | undefined {
  const tag = (lang ?? '').trim().replace(/_/g, '-');
  if (!tag) return undefined;
  try {
    return Intl.getCanonicalLocales(tag)[0];
  } catch {
    return undefined;
  }
}

/** Decimal and group separators of a locale, from ICU. */
export function numberSymbols(locale: string | undefined): NumberSymbols | undefined {
  const tag = normaliseLocale(locale);
  if (!tag) return undefined;
  const cached = symbolCache.get(tag);
  if (cached) return cached;
  const parts = new Intl.NumberFormat(tag, { useGrouping: true }).formatToParts(1234567.5);
  const symbols = {
    decimal: parts.find((p) => p.type === 'decimal')?.value ?? '.',
    group: parts.find((p) => p.type === 'group')?.value ?? ',',
  };
  symbolCache.set(tag, symbols);
  return symbols;
}

/**
 * Reads a number by its shape alone (`1,234.5`, `1.234,5`, `1 234,5`, `4,5`, `1,234`), spaces and apostrophes
 * already removed: the last separator is the decimal mark unless it is followed by exactly three digits and is the
 * only one, or the same mark repeats (`1.234.567`).
 */
export function numberByShape(s: string): number | undefined {
  const lastDot = s.lastIndexOf('.');
  const lastComma = s.lastIndexOf(',');
  const last = Math.max(lastDot, lastComma);
  let normal: string;
  if (last < 0) {
    normal = s;
  } else {
    const mark = s[last];
    const other = mark === '.' ? ',' : '.';
    const decimals = s.length - last - 1;
    const onlyOne = s.indexOf(mark) === last && !s.includes(other);
    if (onlyOne && decimals === 3) normal = s.replace(/[.,]/g, '');
    else if (s.indexOf(mark) !== last && !s.includes(other)) normal = s.replace(/[.,]/g, '');
    else normal = s.slice(0, last).replace(/[.,]/g, '') + '.' + s.slice(last + 1);
  }
  const n = Number(normal);
  return Number.isFinite(n) ? n : undefined;
}

/**
 * The number token at the start of a match, cut where a space stops being a thousands group ("4.5 2,310" is 4.5):
 * a space (plain, no-break, narrow no-break, thin) or apostrophe only groups when exactly three digits follow.
 */
function numberToken(text: string | undefined): { token: string; end: number } | undefined {
  const m = NUMBER_TOKEN.exec(text ?? '');
  if (!m) return undefined;
  let token = m[0];
  const cut = /[\s\u00a0\u202f\u2009'\u2019](?!\d{3}(?!\d))/.exec(token);
  if (cut) token = token.slice(0, cut.index);
  return { token: token.replace(SPACE_GROUPS, ''), end: m.index + (cut ? cut.index : m[0].length) };
}

/**
 * The first number in `text`, read as `locale` writes numbers (`4,5` in de-DE is 4.5, `1.234` is 1234; `12 345`
 * with a no-break or narrow no-break space is 12345; `1,23,456` in en-IN is 123456). Undefined when there is none.
 */
export function parseLocaleNumber(text: string | undefined, locale?: string): number | undefined {
  const t = numberToken(text);
  if (!t) return undefined;
  const token = t.token;
  const sym = numberSymbols(locale);
  if (sym && /^[.,]$/.test(sym.decimal)) {
    const group = sym.group.replace(SPACE_GROUPS, '');
    const [whole, fraction, ...more] = token.split(sym.decimal);
    const groups = group ? whole.split(group) : [whole];
    // The text agrees with the locale: one decimal mark, groups of 2-3 digits (lakh grouping writes 2) after the first.
    const consistent =
      more.length === 0 &&
      groups.slice(1).every((g) => /^\d{2,3}$/.test(g)) &&
      groups.every((g) => /^\d+$/.test(g)) &&
      (fraction === undefined || /^\d+$/.test(fraction));
    if (consistent) {
      const n = Number(fraction === undefined ? groups.join('') : `${groups.join('')}.${fraction}`);
      if (Number.isFinite(n)) return n;
    }
  }
  return numberByShape(token);
}

/**
 * A count (`17,059`, `1.020`, `12 345`, `1,23,456`, `(85)`, `2,3 k`, `1.2K`) as an integer; undefined without digits.
 * Counts are whole, so every separator is a group separator unless a compact suffix (k, M) follows.
 */
export function parseLocaleCount(text: string | undefined, locale?: string): number | undefined {
  const t = numberToken(text);
  if (!t) return undefined;
  const compact = /^\s*(k|K|M|mil|Mio\.?|万)(?![\p{L}])/u.exec((text ?? '').slice(t.end));
  if (compact) {
    const n = parseLocaleNumber(t.token, locale);
    const mult = /^(k|K|mil)$/.test(compact[1]) ? 1e3 : compact[1] === '万' ? 1e4 : 1e6;
    return n === undefined ? undefined : Math.round(n * mult);
  }
  const digits = t.token.replace(/\D/g, '');
  return digits === '' ? undefined : Number(digits);
}

/**
 * A rating out of five (`4.7`, `4,7`, `5,0 von 5 Sternen`, `5つ星のうち4.3`): the first number with a decimal mark (else
 * the first number) read by the locale; undefined when it is not between 0 and 5.
 */
export function parseLocaleRating(text: string | undefined, locale?: string): number | undefined {
  // "5つ星のうち4.3" names the scale first: a number with a decimal mark is the rating when there is one.
  const numbers = (text ?? '').match(/\d+(?:[.,]\d+)?/g) ?? [];
  const m = [numbers.find((n) => /^[0-5][.,]\d{1,2}$/.test(n)) ?? numbers[0]].filter((n) => n !== undefined);
  if (m.length === 0) return undefined;
  // A rating has at most one decimal place: "4,5" is four and a half in any locale.
  const n = /^\d[.,]\d{1,2}$/.test(m[0]) ? Number(m[0].replace(',', '.')) : parseLocaleNumber(m[0], locale);
  return n !== undefined && n >= 0 && n <= 5 ? n : undefined;
}
