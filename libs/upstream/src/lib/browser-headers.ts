/** The desktop Chrome whose request headers upstream fetches imitate. */
export const CHROME_MAJOR = 131;

export const DEFAULT_USER_AGENT = `Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${CHROME_MAJOR}.0.0.0 Safari/537.36`;

/**
 * `Accept-Language` for a host language as Chrome sends it: the language (and its region, when given) first, then
 * English as a fallback. `pt-BR` → `pt-BR,pt;q=0.9,en;q=0.8`; `de` → `de,en;q=0.9`; `en` → `en-US,en;q=0.9`.
 */
export function acceptLanguage(hl: string | undefined): string {
  const tag = (hl ?? 'en').replace('_', '-');
  const [lang = 'en', region] = tag.split('-');
  const base = lang.toLowerCase();
  if (base === 'en') return region ? `en-${region.toUpperCase()},en;q=0.9` : 'en-US,en;q=0.9';
  if (region) return `${base}-${region.toUpperCase()},${base};q=0.9,en;q=0.8`;
  return `${base},en;q=0.9`;
}

/**
 * The headers a desktop Chrome sends on a top-level navigation, with `Accept-Language` from `hl`. Upstream sites
 * treat a request without them as a bot much sooner.
 */
export function browserHeaders(
  options: { hl?: string; userAgent?: string; referer?: string } = {},
): Record<string, string> {
  const headers: Record<string, string> = {
    'user-agent': options.userAgent ?? DEFAULT_USER_AGENT,
    accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8',
    'accept-language': acceptLanguage(options.hl),
    'accept-encoding': 'gzip, deflate, br',
    'cache-control': 'no-cache',
    pragma: 'no-cache',
    'sec-ch-ua': `"Google Chrome";v="${CHROME_MAJOR}", "Chromium";v="${CHROME_MAJOR}", "Not_A Brand";v="24"`,
    'sec-ch-ua-mobile': '?0',
    'sec-ch-ua-platform': '"Windows"',
    'sec-fetch-dest': 'document',
    'sec-fetch-mode': 'navigate',
    'sec-fetch-site': options.referer ? 'same-origin' : 'none',
    'sec-fetch-user': '?1',
    'upgrade-insecure-requests': '1',
  };
  if (options.referer) headers.referer = options.referer;
  return headers;
}

/**
 * Cookies a browser has after answering Google's consent dialog ("reject all"). Without them, clients in the EU are
 * redirected to consent.google.com instead of getting results. Sent with search and maps requests only.
 */
export const GOOGLE_CONSENT_COOKIE = 'CONSENT=PENDING+987; SOCS=CAESHAgBEhJnd3NfMjAyMzA4MTAtMF9SQzIaAmVuIAEaBgiAo_CmBg';
