// The maps search endpoint URL the extractor fetches, and the `ll` parameter it is built from.

export interface MapsViewport {
  latitude: number;
  longitude: number;
  zoom: number;
}

const LL = /^@?(-?\d{1,2}(?:\.\d+)?),(-?\d{1,3}(?:\.\d+)?),(\d{1,2}(?:\.\d+)?)z$/;

/** Parses `@lat,lng,zoomz` (the `@` optional); undefined when it is not that shape or out of range. */
export function parseLl(ll: string | undefined): MapsViewport | undefined {
  const m = LL.exec((ll ?? '').trim());
  if (!m) return undefined;
  const latitude = Number(m[1]);
  const longitude = Number(m[2]);
  const zoom = Number(m[3]);
  if (Math.abs(latitude) > 90 || Math.abs(longitude) > 180 || zoom < 1 || zoom > 21) return undefined;
  return { latitude, longitude, zoom };
}

/** Camera altitude in metres the maps client sends for a zoom level (`!1d`; 768 px high, 13.1° field of view). */
export function altitudeForZoom(zoom: number, latitude = 0): number {
  const metresPerPixel = (156543.03392 * Math.cos((latitude * Math.PI) / 180)) / 2 ** zoom;
  const halfHeight = (metresPerPixel * 768) / 2;
  return Math.round((halfHeight / Math.tan((13.1 * Math.PI) / 180 / 2)) * 1000) / 1000;
}

export interface MapsSearchUrlRequest {
  q: string;
  ll: string;
  hl: string;
  gl?: string;
  num?: number;
  start?: number;
}

export const DEFAULT_MAPS_PAGE_SIZE = 20;

/**
 * `<base>/search?tbm=map&…&pb=…`: the JSON endpoint the maps web client calls for a result list. The `pb` protobuf
 * path carries the viewport (`!1d` altitude, `!2d` lng, `!3d` lat), the page size (`!7i`) and offset (`!8i`).
 */
export function buildMapsSearchUrl(base: string, req: MapsSearchUrlRequest): string {
  const vp = parseLl(req.ll) ?? { latitude: 0, longitude: 0, zoom: 3 };
  const num = Math.max(1, Math.trunc(req.num ?? DEFAULT_MAPS_PAGE_SIZE));
  const start = Math.max(0, Math.trunc(req.start ?? 0));
  const pb =
    `!4m12!1m3!1d${altitudeForZoom(vp.zoom, vp.latitude)}!2d${vp.longitude}!3d${vp.latitude}` +
    `!2m3!1f0!2f0!3f0!3m2!1i1024!2i768!4f13.1!7i${num}!8i${start}!10b1`;
  const url = new URL('search', base.endsWith('/') ? base : `${base}/`);
  url.searchParams.set('tbm', 'map');
  url.searchParams.set('authuser', '0');
  url.searchParams.set('hl', req.hl);
  if (req.gl) url.searchParams.set('gl', req.gl);
  url.searchParams.set('q', req.q);
  url.searchParams.set('pb', pb);
  return url.toString();
}
