export interface SearchUrlRequest {
  q: string;
  hl?: string;
  gl?: string;
  cr?: string;
  lr?: string;
  num?: number;
  start?: number;
}

/**
 * The results-page URL for a query: `<base>/search?q=…` plus Google's hl (interface language), gl (country),
 * cr (country restrict), lr (language restrict), num and start. Empty or absent values are left out; start=0 too.
 */
export function buildSearchUrl(base: string, req: SearchUrlRequest): string {
  // Relative to the base so a path prefix (a simulator mounted under /google) is kept.
  const url = new URL('search', base.endsWith('/') ? base : `${base}/`);
  url.searchParams.set('q', req.q);
  for (const key of ['hl', 'gl', 'cr', 'lr'] as const) {
    const v = req[key]?.trim();
    if (v) url.searchParams.set(key, v);
  }
  if (req.num !== undefined && Number.isFinite(req.num) && req.num > 0)
    url.searchParams.set('num', String(Math.trunc(req.num)));
  if (req.start !== undefined && Number.isFinite(req.start) && req.start > 0)
    url.searchParams.set('start', String(Math.trunc(req.start)));
  return url.toString();
}
