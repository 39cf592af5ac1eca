// Dates as pages write them ("12 mars 2021", "12. März 2021", "12 de marzo de 2021", "March 12, 2021", "2021/3/12"),
// read with month names from ICU (`Intl.DateTimeFormat(locale, { month })`) rather than a hand-kept word list.

/** Locales whose month names are recognised in any text (a page's own locale is always added). */
const KNOWN_LOCALES = ['en', 'de', 'fr', 'es', 'pt', 'it', 'nl', 'sv', 'pl', 'tr'];

const monthCache = new Map<string, Map<string, number>>();

function fold(s: string): string {
  return s
    .toLocaleLowerCase('en')
    .normalize('NFKD')
    .replace(/[\u0300-\u036f.]/g, '')
    .trim();
}

/** Month name (long and short, folded: lower case, no accents, no dots) → month number, for one locale. */
function monthsOf(locale: string): Map<string, number> {
  const cached = monthCache.get(locale);
  if (cached) return cached;
  const map = new Map<string, number>();
  for (const style of ['long', 'short'] as const) {
    for (const ctx of [{ day: 'numeric' as const }, {}]) {
      let fmt: Intl.DateTimeFormat;
      try {
        fmt = new Intl.DateTimeFormat(locale, { month: style, timeZone: 'UTC', ...ctx });
      } catch {
        continue;
      }
      for (let m = 0; m < 12; m++) {
        const part = fmt.formatToParts(new Date(Date.UTC(2021, m, 15))).find((p) => p.type === 'month');
        if (part && /\p{L}/u.test(part.value)) map.set(fold(part.value), m + 1);
      }
    }
  }
  monthCache.set(locale, map);
  return map;
}

/** The month a word names in the page's locale or a well-known one; undefined otherwise. */
export function monthNumber(word: string, locale?: string): number | undefined {
  const w = fold(word);
  if (!w) return undefined;
  const locales = locale ? [locale, ...KNOWN_LOCALES] : KNOWN_LOCALES;
  for (const l of locales) {
    const months = monthsOf(l);
    const exact = months.get(w);
    if (exact) return exact;
  }
  // Abbreviations pages write that ICU spells differently ("Sept", "Juil", "Mrz"): a unique long-name prefix.
  if (w.length >= 3) {
    for (const l of locales) {
      for (const [name, n] of monthsOf(l)) if (name.startsWith(w) && name.length > w.length) return n;
    }
  }
  return undefined;
}

const pad = (n: number | string): string => String(n).padStart(2, '0');

/** A date in the text as `YYYY-MM-DD`, or undefined. */
export function parseLocaleDate(text: string | undefined, locale?: string): string | undefined {
  const t = (text ?? '').replace(/[\s\u00a0\u202f]+/g, ' ').trim();
  const iso = /(\d{4})-(\d{2})-(\d{2})/.exec(t);
  if (iso) return `${iso[1]}-${iso[2]}-${iso[3]}`;
  // East Asian order: 2021/3/12, 2021年3月12日.
  const ymd = /(\d{4})\s*[/年.]\s*(\d{1,2})\s*[/月.]\s*(\d{1,2})/.exec(t);
  if (ymd) return `${ymd[1]}-${pad(ymd[2])}-${pad(ymd[3])}`;
  const dmy = /(\d{1,2})\.?\s+(?:de\s+)?([^\s\d,.]+)\.?,?\s+(?:de\s+)?(\d{4})/u.exec(t);
  if (dmy) {
    const m = monthNumber(dmy[2], locale);
    if (m) return `${dmy[3]}-${pad(m)}-${pad(dmy[1])}`;
  }
  const mdy = /([^\s\d,.]+)\.?\s+(\d{1,2}),?\s+(\d{4})/u.exec(t);
  if (mdy) {
    const m = monthNumber(mdy[1], locale);
    if (m) return `${mdy[3]}-${pad(m)}-${pad(mdy[2])}`;
  }
  return undefined;
}
