// Simulated Google Maps upstream: for any query a `/search?tbm=map` JSON response, and for any place id a place
// page, shaped like the real ones (the `)]}'`-prefixed nested arrays, the place array at the indices the live
// service uses, and the page's `window.APP_INITIALIZATION_STATE`). Everything is derived from the input by hashing,
// so the same request always gets the same answer. Pure: no I/O, no clock, nothing imported from the parsers.
import { createHash } from 'node:crypto';
import { formatHour, formatNumber, type SimLocale, simLocaleFor, weekdays } from './sim-locales.constants.js';

type J = null | boolean | number | string | J[];

export interface SimMapsSearchRequest {
  q: string;
  hl: string;
  gl: string;
  /** Viewport centre. */
  latitude: number;
  longitude: number;
  num: number;
  start: number;
}

/** How many results a query has in all (pages past it are empty). */
export const SIM_MAPS_MAX_RESULTS = 240;

const CITIES: [city: string, state: string, zip: string, lat: number, lng: number, borough: string][] = [
  ['New York', 'NY', '10001', 40.7128, -74.006, 'Manhattan'],
  ['Los Angeles', 'CA', '90012', 34.0522, -118.2437, 'Downtown'],
  ['Chicago', 'IL', '60601', 41.8781, -87.6298, 'The Loop'],
  ['Houston', 'TX', '77002', 29.7604, -95.3698, 'Midtown'],
  ['Phoenix', 'AZ', '85004', 33.4484, -112.074, 'Roosevelt Row'],
  ['Philadelphia', 'PA', '19107', 39.9526, -75.1652, 'Center City'],
  ['San Francisco', 'CA', '94103', 37.7749, -122.4194, 'SoMa'],
  ['Seattle', 'WA', '98101', 47.6062, -122.3321, 'Belltown'],
  ['Denver', 'CO', '80202', 39.7392, -104.9903, 'LoDo'],
  ['Boston', 'MA', '02108', 42.3601, -71.0589, 'Beacon Hill'],
  ['Miami', 'FL', '33130', 25.7617, -80.1918, 'Brickell'],
  ['Atlanta', 'GA', '30303', 33.749, -84.388, 'Midtown'],
  ['Portland', 'OR', '97205', 45.5152, -122.6784, 'Pearl District'],
  ['Austin', 'TX', '78701', 30.2672, -97.7431, 'East Austin'],
  ['Nashville', 'TN', '37203', 36.1627, -86.7816, 'The Gulch'],
  ['Minneapolis', 'MN', '55401', 44.9778, -93.265, 'North Loop'],
];

const CATEGORIES: [keyword: RegExp, category: string, noun: string, group: string][] = [
  [/coffee|cafe|espresso/i, 'Coffee shop', 'Coffee', 'cafe'],
  [/pizza/i, 'Pizza restaurant', 'Pizzeria', 'restaurant'],
  [/restaurant|food|dinner|lunch|eat/i, 'Restaurant', 'Kitchen', 'restaurant'],
  [/bar|pub|beer|cocktail/i, 'Bar', 'Tavern', 'bar'],
  [/hotel|motel|inn|stay/i, 'Hotel', 'Hotel', 'lodging'],
  [/museum|gallery|art/i, 'Museum', 'Museum', 'museum'],
  [/gym|fitness/i, 'Gym', 'Fitness', 'gym'],
  [/dentist|dental/i, 'Dentist', 'Dental Care', 'health'],
  [/plumb/i, 'Plumber', 'Plumbing', 'service'],
  [/bakery|bread/i, 'Bakery', 'Bakery', 'bakery'],
  [/book/i, 'Book store', 'Books', 'store'],
];
const GENERIC_CATEGORY: [RegExp, string, string, string] = [/./, 'Store', 'Goods', 'store'];

const ADJECTIVES = [
  'Golden',
  'Blue',
  'Corner',
  'Harbor',
  'Maple',
  'Union',
  'Copper',
  'Olive',
  'Summit',
  'Lantern',
  'Cedar',
  'Riverside',
  'Sunset',
  'Northside',
  'Juniper',
  'Orchard',
  'Granite',
  'Willow',
  'Brick',
  'Velvet',
];
const STREETS = [
  'Main St',
  'Oak Ave',
  'Market St',
  'Broadway',
  'Elm St',
  'Park Ave',
  'Pine St',
  'Lake Blvd',
  '2nd St',
  'Washington Ave',
  'Maple Dr',
  'Church St',
  'Highland Ave',
  'Mill Rd',
];
const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
const PRICE = [
  ['$', 'Inexpensive'],
  ['$$', 'Moderate'],
  ['$$$', 'Expensive'],
] as const;

/** Deterministic pseudo-random stream seeded by a string. */
function rng(seed: string): () => number {
  let counter = 0;
  return () => {
    const h = createHash('sha256').update(`${seed}#${counter++}`).digest();
    return h.readUInt32BE(0) / 0x1_0000_0000;
  };
}

function pick<T>(r: () => number, items: readonly T[]): T {
  return items[Math.floor(r() * items.length)];
}

/** A sparse array: the given indices set, every other slot null (as the real payload does). */
function sparse(length: number, entries: Record<number, J>): J[] {
  const out: J[] = new Array<J>(length).fill(null);
  for (const [k, v] of Object.entries(entries)) out[Number(k)] = v;
  return out;
}

interface SimPlace {
  placeId: string;
  dataId: string;
  name: string;
  category: string;
  secondaryCategory: string;
  group: string;
  latitude: number;
  longitude: number;
  street: string;
  suite: string;
  borough: string;
  city: string;
  state: string;
  zip: string;
  phone: string;
  website: string;
  rating: number;
  reviews: number;
  price: readonly [string, string];
  description: string;
  image: string;
  hours: { day: string; times: string[] }[];
  open: number;
  close: number;
  seed: string;
}

/**
 * A place id that carries where the place is and what it is, so the place page for it describes the same place the
 * search listed: `ChIJ` + base64url(lat·1e5 int32, lng·1e5 int32, category byte, 8 hash bytes).
 */
function encodePlaceId(lat: number, lng: number, category: number, seed: string): string {
  const buf = Buffer.alloc(17);
  buf.writeInt32BE(Math.round(lat * 1e5), 0);
  buf.writeInt32BE(Math.round(lng * 1e5), 4);
  buf.writeUInt8(category, 8);
  createHash('sha256').update(seed).digest().copy(buf, 9, 0, 8);
  return `ChIJ${buf.toString('base64url')}`;
}

function decodePlaceId(placeId: string): { lat: number; lng: number; category: number } | undefined {
  if (!/^ChIJ[\w-]{23}$/.test(placeId)) return undefined;
  const buf = Buffer.from(placeId.slice(4), 'base64url');
  if (buf.length !== 17) return undefined;
  const lat = buf.readInt32BE(0) / 1e5;
  const lng = buf.readInt32BE(4) / 1e5;
  const category = buf.readUInt8(8);
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180 || category > CATEGORIES.length) return undefined;
  return { lat, lng, category };
}

function categoryIndexFor(q: string): number {
  const i = CATEGORIES.findIndex(([re]) => re.test(q));
  return i < 0 ? CATEGORIES.length : i;
}

function nearestCity(lat: number, lng: number): (typeof CITIES)[number] {
  let best = CITIES[0];
  let bestD = Infinity;
  for (const c of CITIES) {
    const d = (c[3] - lat) ** 2 + (c[4] - lng) ** 2;
    if (d < bestD) {
      best = c;
      bestD = d;
    }
  }
  return best;
}

/** Everything about a place follows from its place id. */
function placeFromId(placeId: string): SimPlace {
  const decoded = decodePlaceId(placeId) ?? { lat: 40.7128, lng: -74.006, category: CATEGORIES.length };
  const r = rng(placeId);
  const [, category, noun, group] = CATEGORIES[decoded.category] ?? GENERIC_CATEGORY;
  const [city, state, zip, , , borough] = nearestCity(decoded.lat, decoded.lng);
  const hash = createHash('sha256').update(placeId).digest();
  const dataId = `0x${hash.subarray(0, 8).toString('hex')}:0x${hash.subarray(8, 16).toString('hex')}`;
  const name = `${pick(r, ADJECTIVES)} ${pick(r, ADJECTIVES)} ${noun}`;
  const slug = name.toLowerCase().replace(/[^a-z0-9]+/g, '');
  const open = 6 + Math.floor(r() * 5);
  const close = 17 + Math.floor(r() * 6);
  const closedDay = Math.floor(r() * 9);
  const fmt = (h: number): string => (h < 12 ? `${h} AM` : h === 12 ? '12 PM' : `${h - 12} PM`);
  const areaCode = 200 + Math.floor(r() * 700);
  const line = 1000 + Math.floor(r() * 9000);
  const exchange = 200 + Math.floor(r() * 700);
  return {
    placeId,
    dataId,
    name,
    category,
    secondaryCategory: group === 'cafe' ? 'Cafe' : `${category.split(' ')[0]} service`,
    group,
    latitude: decoded.lat,
    longitude: decoded.lng,
    street: `${10 + Math.floor(r() * 2990)} ${pick(r, STREETS)}`,
    suite: `Suite ${100 + Math.floor(r() * 900)}`,
    borough,
    city,
    state,
    zip,
    phone: `(${areaCode}) ${exchange}-${line}`,
    website: `https://www.${slug}.example/`,
    rating: Math.round((3.5 + r() * 1.5) * 10) / 10,
    reviews: 5 + Math.floor(r() * 4000),
    price: pick(r, PRICE),
    description: `${pick(r, ['Cosy', 'Busy', 'Friendly', 'Spacious', 'Family-run'])} ${category.toLowerCase()} in ${borough}.`,
    image: `https://lh5.googleusercontent.com/p/AF1Qip${hash.subarray(16, 28).toString('base64url')}=w408-h306-k-no`,
    hours: DAYS.map((day, i) => ({ day, times: i === closedDay ? ['Closed'] : [`${fmt(open)}–${fmt(close)}`] })),
    open,
    close,
    seed: placeId,
  };
}

function placeForResult(req: SimMapsSearchRequest, index: number): SimPlace {
  const r = rng(`${req.q.toLowerCase()}|${req.latitude.toFixed(2)}|${req.longitude.toFixed(2)}|${index}`);
  const spread = 0.06;
  const lat = req.latitude + (r() - 0.5) * spread;
  const lng = req.longitude + (r() - 0.5) * spread;
  return placeFromId(encodePlaceId(lat, lng, categoryIndexFor(req.q), `${req.q}|${index}`));
}

const ABOUT_GROUPS: [id: string, name: string, options: [string, string, boolean][]][] = [
  [
    'service_options',
    'Service options',
    [
      ['has_takeout', 'Takeout', true],
      ['serves_dine_in', 'Dine-in', true],
      ['has_delivery', 'Delivery', false],
    ],
  ],
  ['accessibility', 'Accessibility', [['has_wheelchair_accessible_entrance', 'Wheelchair accessible entrance', true]]],
  [
    'payments',
    'Payments',
    [
      ['pay_credit_card', 'Credit cards', true],
      ['pay_mobile_nfc', 'NFC mobile payments', true],
    ],
  ],
];

/** The place array (the same indices the live payload uses). */
/** The place as a locale shows it: price level, opening hours and the reviews wording in its own words and numbers. */
function localized(
  p: SimPlace,
  locale: SimLocale,
): { priceDollar: string; priceText: string; hours: { day: string; times: string[] }[]; reviewsText: string } {
  const level = PRICE.findIndex(([sym]) => sym === p.price[0]);
  const days = weekdays(locale.tag);
  const en = locale.tag === 'en-US';
  return {
    priceDollar: en ? p.price[0] : locale.maps.currencySymbol.repeat(level + 1),
    priceText: en ? p.price[1] : locale.maps.priceLevels[level],
    hours: en
      ? p.hours
      : p.hours.map((h, i) => ({
          day: days[i],
          times:
            h.times[0] === 'Closed'
              ? [locale.maps.closed]
              : [`${formatHour(locale.tag, p.open)}–${formatHour(locale.tag, p.close)}`],
        })),
    reviewsText: `${formatNumber(locale.tag, p.reviews)} ${locale.maps.reviews}`,
  };
}

function placeArray(p: SimPlace, hl: string, gl?: string): J[] {
  const loc = localized(p, simLocaleFor(hl, gl));
  const full = `${p.street}, ${p.suite}, ${p.city}, ${p.state} ${p.zip}`;
  const q = encodeURIComponent(p.name).replace(/%20/g, '+');
  const reviewsUrl = `https://search.google.com/local/reviews?placeid=${p.placeId}&q=${q}&authuser=0&hl=${hl}&gl=US`;
  const mapsUrl = `https://www.google.com/maps/place/${q}/data=!4m2!3m1!1s${p.dataId}!10m1!1e1`;
  const host = new URL(p.website).host.replace(/^www\./, '');
  const order = `https://order.example/${host.split('.')[0]}`;
  const r = rng(`${p.seed}|busy`);
  return sparse(250, {
    0: createHash('sha1').update(p.seed).digest('base64url').slice(0, 22),
    2: [p.street, p.suite, `${p.city}, ${p.state} ${p.zip}`],
    4: [
      null,
      null,
      loc.priceDollar,
      [reviewsUrl, loc.reviewsText, null, 'ved'],
      loc.priceDollar,
      null,
      null,
      p.rating,
      p.reviews,
      null,
      loc.priceText,
    ],
    7: [p.website, host, null, 'ved'],
    9: [null, null, p.latitude, p.longitude],
    10: p.dataId,
    11: p.name,
    13: [p.category, p.secondaryCategory],
    18: `${p.name}, ${full}`,
    27: mapsUrl,
    30: 'America/New_York',
    32: [null, [null, p.description]],
    34: [
      null,
      loc.hours.map((h) => [h.day, h.times, null, null, '2026-01-05', 1, [], 0]),
      null,
      null,
      [null, 1, 5, null, 'Open ⋅ Closes 6 PM'],
    ],
    38: [`${p.website}menu`, host],
    39: full,
    46: [[`https://reserve.example/${host.split('.')[0]}`, 'reserve.example']],
    57: [null, `${p.name} (Owner)`, '1'.repeat(21)],
    72: [[[`AF1Qip${p.seed.slice(4, 16)}`, 10, 12, '', null, 100, [p.image, p.name, [2048, 1536], [408, 306]]]]],
    75: [
      [
        [
          4,
          null,
          [
            [
              ['order.example', null, ['https://lh3.googleusercontent.com/logo', 'Order', [80, 80]], 1],
              [null, null, [order, [order]]],
            ],
          ],
        ],
      ],
    ],
    78: p.placeId,
    84: [
      DAYS.map((_, d) => [
        d + 1,
        Array.from({ length: 18 }, (__, h) => [h + 6, Math.floor(r() * 100), '', '', `${h + 6}`]),
      ]),
    ],
    100: [
      null,
      ABOUT_GROUPS.map(([id, name, opts]) => [
        id,
        name,
        opts.map(([key, label, on]) => [
          `/geo/type/establishment_poi/${key}`,
          label,
          [on ? 1 : 0, [[on ? 1 : 0, label]]],
          null,
          [1],
          0,
        ]),
      ]),
    ],
    178: [
      [
        p.phone,
        [
          [p.phone, 1],
          [`+1 ${p.phone.replace(/[()]/g, '').replace(' ', '-')}`, 2],
        ],
        null,
        `+1${p.phone.replace(/\D/g, '')}`,
      ],
    ],
    183: [[], [p.borough, p.street, p.suite, p.city, p.zip, p.state, 'US']],
  });
}

function fromPb(pb: string, key: string): number | undefined {
  const m = new RegExp(`!${key}(-?\\d+(?:\\.\\d+)?)`).exec(pb);
  return m ? Number(m[1]) : undefined;
}

/** Reads a `/search?tbm=map` request: q, hl, gl, and from `pb` the centre (`!2d` lng, `!3d` lat), `!7i` num, `!8i` start. */
export function mapsSearchRequestFromUrl(url: URL): SimMapsSearchRequest {
  const pb = url.searchParams.get('pb') ?? '';
  return {
    q: url.searchParams.get('q') ?? '',
    hl: url.searchParams.get('hl') ?? 'en',
    gl: url.searchParams.get('gl') ?? 'us',
    latitude: fromPb(pb, '3d') ?? 40.7128,
    longitude: fromPb(pb, '2d') ?? -74.006,
    num: Math.max(0, Math.min(500, fromPb(pb, '7i') ?? 20)),
    start: Math.max(0, fromPb(pb, '8i') ?? 0),
  };
}

/** The search endpoint's body: `)]}'` + `[[q, [meta, …entries with the place array at [14]]], viewport, …]`. */
export function mapsSearchResponse(req: SimMapsSearchRequest): string {
  const end = Math.min(req.start + req.num, req.q.trim() === '' ? 0 : SIM_MAPS_MAX_RESULTS);
  const entries: J[] = [sparse(11, { 8: 'session', 9: 'ved', 10: [req.q, 0] })];
  for (let i = req.start; i < end; i++) {
    entries.push(sparse(15, { 8: 'session', 9: 'ved', 14: placeArray(placeForResult(req, i), req.hl, req.gl) }));
  }
  const viewport: J = [[3826.9, req.longitude, req.latitude], [0, 0, 0], [1024, 768], 13.1];
  return `)]}'\n${JSON.stringify([[req.q, entries, null, 1], viewport, null, null, null, null, null, 'session'])}`;
}

/** The place ids a search response lists (for tests and for following a result to its page). */
export function simulatedPlaceIds(req: SimMapsSearchRequest): string[] {
  const end = Math.min(req.start + req.num, SIM_MAPS_MAX_RESULTS);
  const ids: string[] = [];
  for (let i = req.start; i < end; i++) ids.push(placeForResult(req, i).placeId);
  return ids;
}

function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/**
 * A place page as the maps web client serves it: the title, a rendered side panel (heading, rating, address, phone,
 * website, hours, the share link that carries the place's own URL) and `window.APP_INITIALIZATION_STATE` whose
 * [3][6] holds the place payload as an XSSI-prefixed JSON string. Any id gives a page; ids from `mapsSearchResponse`
 * give the place that search listed. `hl`/`gl` pick the locale: its words, number formats, weekday names and hours.
 */
export function mapsPlacePage(placeId: string, hl = 'en', gl?: string): string {
  const p = placeFromId(placeId);
  const locale = simLocaleFor(hl, gl);
  const loc = localized(p, locale);
  const payload = `)]}'\n${JSON.stringify([null, [], null, null, [[3281.4, p.longitude, p.latitude], [0, 0, 0], [1024, 768], 13.1], null, placeArray(p, hl, gl)])}`;
  const stub = `)]}'\n${JSON.stringify([[p.dataId, p.name, null, [null, null, p.latitude, p.longitude]]])}`;
  const state = JSON.stringify([
    [[3281.4, p.longitude, p.latitude], [0, 0, 0], [1024, 768], 13.1],
    null,
    null,
    [null, null, null, null, null, stub, payload],
  ]);
  const address = `${p.street}, ${p.suite}, ${p.city}, ${p.state} ${p.zip}`;
  const rows = loc.hours
    .map(
      (h) =>
        `<tr><td><div>${escapeHtml(h.day)}</div></td><td role="text" aria-label="${escapeHtml(h.times.join(', '))}"><ul>${h.times.map((t) => `<li>${escapeHtml(t)}</li>`).join('')}</ul></td></tr>`,
    )
    .join('');
  const rating = formatNumber(locale.tag, p.rating, 1);
  const reviews = formatNumber(locale.tag, p.reviews);
  const slug = encodeURIComponent(p.name).replace(/%20/g, '+');
  const own = `https://www.google.com/maps/place/${slug}/data=!4m7!3m6!1s${p.dataId}!8m2!3d${p.latitude}!4d${p.longitude}!16s%2Fg%2F11sim!19s${p.placeId}?hl=${encodeURIComponent(hl)}`;
  const m = locale.maps;
  return `<!DOCTYPE html><html lang="${escapeHtml(hl)}" dir="${locale.dir}"><head><meta charset="utf-8"><title>${escapeHtml(p.name)} - Google Maps</title></head>
<body><div role="main" aria-label="${escapeHtml(p.name)}">
<div><h1>${escapeHtml(p.name)}</h1>
<div><span aria-hidden="true">${rating}</span><span role="img" aria-label="${rating} ${escapeHtml(m.stars)} "></span><span role="img" aria-label="${reviews} ${escapeHtml(m.reviews)}">(${reviews})</span>
<span><button jsaction="pane.rating.category">${escapeHtml(p.category)}</button></span> <span aria-label="${escapeHtml(loc.priceText)}" role="img">${escapeHtml(loc.priceDollar)}</span></div></div>
<button data-item-id="address" aria-label="${escapeHtml(m.address)}: ${escapeHtml(address)} "><div>${escapeHtml(address)}</div></button>
<a data-item-id="authority" aria-label="${escapeHtml(m.website)}: ${escapeHtml(p.website)} " href="${escapeHtml(p.website)}">${escapeHtml(p.website)}</a>
<button data-item-id="phone:tel:+1${p.phone.replace(/\D/g, '')}" aria-label="${escapeHtml(m.phone)}: ${escapeHtml(p.phone)} "><div>${escapeHtml(p.phone)}</div></button>
<table><tbody>${rows}</tbody></table>
</div>
<a data-value="share" aria-label="Share" href="${escapeHtml(own)}"></a>
<script>window.APP_INITIALIZATION_STATE=${state};window.APP_FLAGS=[];</script>
</body></html>`;
}
