import type { AboutGroup } from '@trawl/contracts';

/**
 * What the readers learn about one place, before it is shaped into a wire record. Every reader (embedded data,
 * rendered DOM) fills what it can; `mergeFacts` lets an earlier layer win and a later one fill the gaps.
 */
export interface PlaceFacts {
  name?: string;
  placeId?: string;
  /** `0x…:0x…` feature id; its second half is the CID. */
  dataId?: string;
  cid?: string;
  /** Full address without the place name. */
  address?: string;
  street?: string;
  streetSupplement?: string;
  borough?: string;
  city?: string;
  state?: string;
  postalCode?: string;
  /** ISO 3166-1 alpha-2 when known. */
  countryCode?: string;
  latitude?: number;
  longitude?: number;
  rating?: number;
  reviewsCount?: number;
  website?: string;
  phone?: string;
  categories?: string[];
  description?: string;
  image?: string;
  mapsUrl?: string;
  reviewsUrl?: string;
  priceDollar?: string;
  priceText?: string;
  ordersUrls?: string[];
  menuUrls?: string[];
  hours?: { day: string; times: string[] }[];
  about?: AboutGroup[];
  claimed?: boolean;
  status?: string;
  permanentlyClosed?: boolean;
  temporarilyClosed?: boolean;
  popularTimes?: unknown;
  /** The rendered page is a results list with this place opened as a panel on top of it. */
  panelOverList?: boolean;
  reviewSummary?: unknown;
}

function isEmpty(v: unknown): boolean {
  return v === undefined || v === '' || (Array.isArray(v) && v.length === 0);
}

/** Field by field, the first layer that has a value wins. */
export function mergeFacts(...layers: (PlaceFacts | undefined)[]): PlaceFacts {
  const out: Record<string, unknown> = {};
  for (const layer of layers) {
    if (!layer) continue;
    for (const [key, value] of Object.entries(layer)) {
      if (isEmpty(out[key]) && !isEmpty(value)) out[key] = value;
    }
  }
  return out as PlaceFacts;
}

/** Decimal CID from a `0x…:0x…` feature id. */
export function cidFromDataId(dataId: string | undefined): string | undefined {
  const m = /^0x[0-9a-f]+:(0x[0-9a-f]+)$/i.exec(dataId ?? '');
  if (!m) return undefined;
  const cid = BigInt(m[1]).toString();
  return cid === '0' ? undefined : cid;
}

export const DATA_ID_PATTERN = /^0x[0-9a-f]+:0x[0-9a-f]+$/i;
