import { defaultIdentities, localeIdentity, navigationHeaders } from '@trawl/browser-identity';

/**
 * `Accept-Language` for a host language (and country) as Chrome sends it: the language (and its region, when
 * given) first, then English. `pt-BR` → `pt-BR,pt;q=0.9,en;q=0.8`; `de` → `de,en;q=0.9`; `en` → `en-US,en;q=0.9`.
 */
export function acceptLanguage(hl: string | undefined, gl?: string): string {
  return localeIdentity(hl, gl).acceptLanguage;
}

/**
 * The headers a desktop Chrome sends on a top-level navigation, from the one browser identity
 * (`@trawl/browser-identity`: the real Chromium's version, or header-generator's newest recorded Chrome where no
 * browser is installed), with `Accept-Language` from `hl`/`gl`. Upstream sites treat a request without them as a
 * bot much sooner. A configured `userAgent` replaces the identity's user agent (its client hints stay).
 */
export function browserHeaders(
  options: { hl?: string; gl?: string; userAgent?: string; referer?: string } = {},
): Record<string, string> {
  const headers = navigationHeaders(defaultIdentities().forLocale(options.hl, options.gl), {
    referer: options.referer,
  });
  if (options.userAgent) headers['user-agent'] = options.userAgent;
  return headers;
}

/**
 * Cookies a browser has after answering Google's consent dialog ("reject all"). Without them, clients in the EU are
 * redirected to consent.google.com instead of getting results. Sent with search and maps requests only.
 */
export const GOOGLE_CONSENT_COOKIE = 'CONSENT=PENDING+987; SOCS=CAESHAgBEhJnd3NfMjAyMzA4MTAtMF9SQzIaAmVuIAEaBgiAo_CmBg';
