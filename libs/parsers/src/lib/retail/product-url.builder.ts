const ASIN_IN_URL = /\/(?:dp|gp\/product|gp\/aw\/d|exec\/obidos\/ASIN|o\/ASIN)\/([A-Z0-9]{10})(?=[/?#]|$)/i;

/** The ASIN in a product URL (`/dp/B0…`, `/gp/product/B0…`), or undefined. */
export function asinFromUrl(url: string | undefined): string | undefined {
  return ASIN_IN_URL.exec(url ?? '')?.[1]?.toUpperCase();
}

/**
 * The canonical product URL on a store: `buildProductUrl('https://www.amazon.ae', 'B0DBZPXJRH')` →
 * `https://www.amazon.ae/dp/B0DBZPXJRH`. Given a full product URL, it is reduced to the same form on `base`.
 */
export function buildProductUrl(base: string, asinOrUrl: string): string {
  const asin = /^[A-Z0-9]{10}$/i.test(asinOrUrl.trim()) ? asinOrUrl.trim().toUpperCase() : asinFromUrl(asinOrUrl);
  if (!asin) throw new Error(`not an ASIN or product URL: ${asinOrUrl}`);
  return new URL(`/dp/${asin}`, base).toString();
}
