export interface SearchUrlRequest {
  q: string;
  hl?: string;
  gl?: string;
  cr?: string;
  lr?: string;
  num?: number;
  start?: number;
  /** Google's `tbs` (time restriction), as is. */
  tbs?: string;
  /** A canonical place name, sent as Google's `uule`. */
  location?: string;
}

/**
 * Google's `uule` for a canonical place name: `w+` and the base64 of a small protobuf message (role 2, producer 32,
 * field 4 the name, length-prefixed as a varint).
 */
export function encodeUule(location: string): string {
  const name = Buffer.from(location, 'utf8');
  const length: number[] = [];
  for (let n = name.length; ; n >>>= 7) {
    if (n < 0x80) {
      length.push(n);
      break;
    }
    length.push((n & 0x7f) | 0x80);
  }
  return `w+${Buffer.concat([Buffer.from([0x08, 0x02, 0x10, 0x20, 0x22, ...length]), name]).toString('base64')}`;
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
  const tbs = req.tbs?.trim();
  if (tbs) url.searchParams.set('tbs', tbs);
  const location = req.location?.trim();
  if (location) url.searchParams.set('uule', encodeUule(location));
  return url.toString();
}
