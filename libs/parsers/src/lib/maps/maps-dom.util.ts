// Small DOM helpers shared by the rendered-page readers (the last layer: class names change, so prefer roles,
// aria labels, data-item-id attributes and URLs over classes).
import type { AboutGroup } from '@trawl/contracts';

/** `Label: value ` → `value`. */
export function afterLabel(text: string | undefined): string | undefined {
  if (!text) return undefined;
  const i = text.indexOf(':');
  const v = (i >= 0 ? text.slice(i + 1) : text).trim();
  return v === '' ? undefined : v;
}

/** Unwraps Google's `/url?q=<target>` redirect links. */
export function unwrapRedirect(href: string | undefined): string | undefined {
  if (!href) return undefined;
  try {
    const u = new URL(href, 'https://www.google.com');
    if (u.pathname === '/url') return u.searchParams.get('q') ?? u.searchParams.get('url') ?? href;
    return u.href;
  } catch {
    return href;
  }
}

/** Facts carried by a maps place URL: `…/data=!…!1s0x…:0x…!…!3d<lat>!4d<lng>!…!19s<placeId>`, or `@lat,lng`. */
export function readPlaceUrl(href: string | undefined): {
  dataId?: string;
  latitude?: number;
  longitude?: number;
  placeId?: string;
} {
  if (!href) return {};
  let decoded = href;
  try {
    decoded = decodeURIComponent(href);
  } catch {
    // keep as is
  }
  const lat = /!3d(-?\d+(?:\.\d+)?)/.exec(decoded)?.[1] ?? /@(-?\d+(?:\.\d+)?),-?\d/.exec(decoded)?.[1];
  const lng = /!4d(-?\d+(?:\.\d+)?)/.exec(decoded)?.[1] ?? /@-?\d+(?:\.\d+)?,(-?\d+(?:\.\d+)?)/.exec(decoded)?.[1];
  return {
    dataId: /!1s(0x[0-9a-f]+:0x[0-9a-f]+)/i.exec(decoded)?.[1],
    latitude: lat === undefined ? undefined : Number(lat),
    longitude: lng === undefined ? undefined : Number(lng),
    placeId: /!19s(ChIJ[\w-]+)/.exec(decoded)?.[1] ?? /place_id[:=](ChIJ[\w-]+)/.exec(decoded)?.[1],
  };
}

const CURRENCY_LEVEL = /^[$€£¥₩₹₺₽]{1,4}$/;
export function isPriceLevel(text: string): boolean {
  return CURRENCY_LEVEL.test(text.trim());
}

export function isPhoneText(text: string): boolean {
  return /^\+?[\d\s().\-–]{7,20}$/.test(text.trim()) && (text.match(/\d/g) ?? []).length >= 6;
}

export function isOpeningStatus(text: string): boolean {
  return /\b(open|opens|closed|closes|closing)\b|24 hours|permanently|temporarily/i.test(text);
}

export const PHOTO_URL = /^https:\/\/lh\d\.googleusercontent\.com\/(p|gps-cs-s|gps-proxy)\//;

export type { AboutGroup };
