/** What a host language (`hl`) and country (`gl`) make of a browser's language settings and clock. */
export interface LocaleIdentity {
  /** BCP 47 locale for Intl and the page (`de-DE`; `de` when neither hl nor gl names a region). */
  locale: string;
  /** `navigator.languages`, most preferred first (`de-DE`, `de`, `en`). */
  languages: string[];
  /** The `Accept-Language` header Chrome makes of `languages` (`de-DE,de;q=0.9,en;q=0.8`). */
  acceptLanguage: string;
  /** IANA time zone of the country (`Europe/Berlin`). */
  timezoneId: string;
}

/**
 * The most populous zone of countries with several, where ICU's first one (alphabetical) is not it. Others take
 * the only (or first) zone ICU lists for the country.
 */
const PRIMARY_ZONE: Record<string, string> = {
  AR: 'America/Argentina/Buenos_Aires',
  AU: 'Australia/Sydney',
  BR: 'America/Sao_Paulo',
  CA: 'America/Toronto',
  CL: 'America/Santiago',
  CY: 'Asia/Nicosia',
  ES: 'Europe/Madrid',
  GL: 'America/Nuuk',
  KI: 'Pacific/Tarawa',
  MH: 'Pacific/Majuro',
  MN: 'Asia/Ulaanbaatar',
  MX: 'America/Mexico_City',
  PF: 'Pacific/Tahiti',
  PG: 'Pacific/Port_Moresby',
  PT: 'Europe/Lisbon',
  RU: 'Europe/Moscow',
  UA: 'Europe/Kiev',
  US: 'America/New_York',
  UZ: 'Asia/Tashkent',
};

/** The region English speakers without one are taken to be in (what a default Chrome says: `en-US`). */
const DEFAULT_REGION = 'US';

/**
 * Language settings and time zone for a host language and country, as a person there has them: `hl=de, gl=DE` →
 * `de-DE`, `[de-DE, de, en]`, `de-DE,de;q=0.9,en;q=0.8`, `Europe/Berlin`. `hl` may carry its own region
 * (`pt-BR`, `pt_BR`), which wins over `gl` for the language; `gl` picks the time zone (else the language's region,
 * else the United States). English is always last, as most browsers outside English-speaking countries have it.
 */
export function localeIdentity(hl?: string, gl?: string): LocaleIdentity {
  const tag = (hl ?? 'en').trim().replace('_', '-') || 'en';
  const [rawLang = 'en', rawRegion] = tag.split('-');
  const lang = rawLang.toLowerCase();
  const country = gl?.trim().toUpperCase() || undefined;
  let region = rawRegion?.toUpperCase() ?? country;
  if (lang === 'en' && !region) region = DEFAULT_REGION;
  const languages = region ? [`${lang}-${region}`, lang] : [lang];
  if (lang !== 'en') languages.push('en');
  return {
    locale: languages[0],
    languages,
    acceptLanguage: acceptLanguageOf(languages),
    timezoneId: timezoneOf(country ?? region ?? DEFAULT_REGION),
  };
}

/** Chrome's `Accept-Language` for a language list: the first bare, then q=0.9, 0.8, ... (never below 0.1). */
export function acceptLanguageOf(languages: readonly string[]): string {
  return languages.map((l, i) => (i === 0 ? l : `${l};q=${Math.max(1, 10 - i) / 10}`)).join(',');
}

/** The main IANA zone of an ISO 3166 country code; UTC for a code ICU does not know. */
export function timezoneOf(country: string): string {
  const code = country.toUpperCase();
  const primary = PRIMARY_ZONE[code];
  if (primary) return primary;
  try {
    const zones = (new Intl.Locale(`und-${code}`) as Intl.Locale & { timeZones?: string[] }).timeZones;
    return zones?.[0] ?? 'UTC';
  } catch {
    return 'UTC';
  }
}
