// Conformance against the real pages in the shared fixtures (not in the repo). Each *.expected.json holds the source
// project's own field names (see its `_about`); here they are mapped onto our record fields and checked. Pages with
// no expected output are checked for name, address and coordinates. A per-field pass-rate table is printed at the end.
import { afterAll, describe, expect, it } from '@jest/globals';
import type { MapsPlaceItem, PlaceRecord } from '@trawl/contracts';
import { fixturesAvailable, listFixtures, readExpected, readFixture } from '../../testing/fixtures.reader.js';
import { parseMapsSearch } from './maps-search.parser.js';
import { parsePlacePage } from './place-page.parser.js';

type Expected = Record<string, unknown>;
interface Check {
  field: string;
  ok: boolean;
  got: unknown;
  want: unknown;
}

const tally = new Map<string, { pass: number; total: number }>();
const failures: string[] = [];

function record(page: string, checks: Check[]): void {
  for (const c of checks) {
    const t = tally.get(c.field) ?? { pass: 0, total: 0 };
    t.total++;
    if (c.ok) t.pass++;
    else failures.push(`${page} ${c.field}: got ${JSON.stringify(c.got)} want ${JSON.stringify(c.want)}`);
    tally.set(c.field, t);
  }
}

const digits = (s: unknown): string => String(s ?? '').replace(/\D/g, '');
const near = (a: number | null, b: number): boolean => a !== null && Math.abs(a - b) < 1e-4;
const hostOf = (u: string): string => {
  try {
    return new URL(/^https?:/.test(u) ? u : `https://${u}`).host.replace(/^www\./, '');
  } catch {
    return u;
  }
};
const normTime = (s: string): string =>
  s
    .replace(/\s*[–-]\s*/g, ' to ')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();

function eq(field: string, got: unknown, want: unknown): Check {
  return { field, ok: JSON.stringify(got) === JSON.stringify(want), got, want };
}

/** gosom Entry (JSON parser, 2023) → single-place record. */
function checkGosomEntry(r: PlaceRecord, e: Expected): Check[] {
  const checks: Check[] = [];
  const has = (k: string): boolean => e[k] !== undefined;
  if (has('title')) checks.push(eq('name', r.mp_company_name, e.title));
  if (has('categories')) checks.push(eq('category', r.mp_category, e.categories));
  else if (has('category')) checks.push(eq('category', r.mp_category[0], e.category));
  if (has('address')) checks.push(eq('address', r.mp_address, e.address));
  if (has('web_site')) checks.push(eq('website', r.mp_website, e.web_site));
  if (has('phone'))
    checks.push({
      field: 'phone',
      ok: digits(r.mp_phone) !== '' && digits(r.mp_phone).endsWith(digits(e.phone)),
      got: r.mp_phone,
      want: e.phone,
    });
  if (has('review_count')) checks.push(eq('reviews_count', r.mp_reviews_count, e.review_count));
  if (has('review_rating')) checks.push(eq('rating', r.mp_rating, e.review_rating));
  if (has('latitude'))
    checks.push({ field: 'latitude', ok: near(r.latitude, e.latitude as number), got: r.latitude, want: e.latitude });
  if (has('longtitude'))
    checks.push({
      field: 'longitude',
      ok: near(r.longitude, e.longtitude as number),
      got: r.longitude,
      want: e.longtitude,
    });
  if (has('cid')) checks.push(eq('cid', r.cid, e.cid));
  if (has('place_id')) checks.push(eq('place_id', r.mp_place_id, e.place_id));
  if (has('link')) checks.push(eq('maps_url', r.mp_maps_url, e.link));
  if (has('reviews_link')) checks.push(eq('reviews_url', r.mp_reviews_url, e.reviews_link));
  if (has('thumbnail')) checks.push(eq('image', r.mp_image, e.thumbnail));
  if (has('price_range')) checks.push(eq('price_range_dollar_sign', r.mp_price_range_dollar_sign, e.price_range));
  if (has('order_online')) {
    checks.push(
      eq(
        'orders_urls',
        r.mp_orders_urls,
        (e.order_online as { link: string }[]).map((o) => o.link),
      ),
    );
  }
  if (has('open_hours')) {
    const want = Object.entries(e.open_hours as Record<string, string[]>).map(([day, times]) => ({ day, times }));
    const got = [...r.mp_hours].sort(
      (a, b) => want.findIndex((w) => w.day === a.day) - want.findIndex((w) => w.day === b.day),
    );
    checks.push(eq('hours', got, want));
  }
  if (has('open_hours_text')) {
    const want = String(e.open_hours_text)
      .replace(/\.\s*Hide open hours.*$/, '')
      .split(';')
      .map((p) => p.trim().split(', '))
      .map(([day, ...t]) => ({ day, times: t.map(normTime) }));
    const got = r.mp_hours.map((h) => ({ day: h.day, times: h.times.map(normTime) }));
    const ok = want.every((w) =>
      got.some((g) => g.day === w.day && JSON.stringify(g.times) === JSON.stringify(w.times)),
    );
    checks.push({ field: 'hours', ok, got, want });
  }
  if (has('complete_address')) {
    const a = e.complete_address as Record<string, string>;
    checks.push(eq('street', r.mp_street_address, a.street));
    checks.push(eq('city', r.mp_city, a.city));
    checks.push(eq('zip_code', r.mp_zip_code, a.postal_code));
    checks.push(eq('country', r.ctx_country, a.country));
  }
  if (has('description') || e._about?.toString().includes('description')) {
    checks.push(eq('description', r.mp_description, (e.description as string | undefined) ?? ''));
  }
  if (String(e._about ?? '').includes('len(about)==10')) {
    const about = JSON.parse(r.about) as { id: string; name: string; options: unknown[] }[];
    checks.push({
      field: 'about',
      ok: about.length === 10 && about.every((g) => g.id && g.name && g.options.length > 0),
      got: about.length,
      want: 10,
    });
  }
  return checks;
}

/** cocli golden row (item.html) → single-place record. */
function checkCocliPlace(r: PlaceRecord, e: Expected): Check[] {
  return [
    eq('name', r.mp_company_name, e.name),
    eq('address', r.mp_address, e.address),
    { field: 'phone', ok: digits(r.mp_phone) === digits(e.phone), got: r.mp_phone, want: e.phone },
    { field: 'website', ok: hostOf(r.mp_website) === hostOf(String(e.website)), got: r.mp_website, want: e.website },
    eq('place_id', r.mp_place_id, e.place_id),
  ];
}

/** cocli golden row (list.html) → the search must contain that place. */
function checkCocliSearch(items: MapsPlaceItem[], e: Expected): Check[] {
  const want = e.must_contain_result as { name: string; place_id: string };
  const hit = items.find((i) => i.name === want.name && i.place_id === want.place_id);
  return [
    {
      field: 'search.contains_name',
      ok: items.some((i) => i.name === want.name),
      got: items.map((i) => i.name),
      want: want.name,
    },
    {
      field: 'search.contains_place_id',
      ok: hit !== undefined,
      got: items.map((i) => i.place_id),
      want: want.place_id,
    },
  ];
}

function basicPlaceChecks(
  prefix: string,
  name: string,
  address: string,
  lat: number | null,
  lng: number | null,
): Check[] {
  return [
    { field: `${prefix}name`, ok: name.trim() !== '', got: name, want: 'non-empty' },
    { field: `${prefix}address`, ok: address.trim() !== '', got: address, want: 'non-empty' },
    {
      field: `${prefix}coordinates`,
      ok: lat !== null && lng !== null && lat !== 0 && lng !== 0 && Math.abs(lat) <= 90 && Math.abs(lng) <= 180,
      got: [lat, lng],
      want: 'valid',
    },
  ];
}

const SOFT_FIELDS = new Set(['search.address']);
const available = fixturesAvailable('maps');
const pages = listFixtures('maps').filter((f) => /\.(html|json)$/.test(f) && !f.endsWith('.expected.json'));
const ctxFor = (base: string) => ({
  q: 'conformance',
  hl: 'en',
  requestUrl: `https://www.google.com/maps/search/${base}`,
});

describe('maps parsers against the shared real pages', () => {
  if (!available || pages.length === 0) {
    it.skip('real maps pages are not available (set TRAWL_FIXTURES_DIR)', () => undefined);
    return;
  }

  for (const page of pages) {
    const base = page.replace(/\.(html|json)$/, '');
    const expected = readExpected('maps', base) as Expected | undefined;
    const isSearch = /-search-/.test(base);

    it(`${page}: ${isSearch ? 'search' : 'place'} fields match the source project's expected values`, () => {
      const input = readFixture('maps', page);
      let checks: Check[];
      if (isSearch) {
        const data = parseMapsSearch(input, ctxFor(base));
        const items = data.organicResults;
        checks = [{ field: 'search.has_results', ok: items.length > 0, got: items.length, want: '>0' }];
        for (const i of items) checks.push(...basicPlaceChecks('search.', i.name, i.address, i.latitude, i.longitude));
        if (expected?.must_contain_result) checks.push(...checkCocliSearch(items, expected));
      } else {
        const r = parsePlacePage(input, { url: `https://www.google.com/maps/place/${base}` });
        checks = basicPlaceChecks('', r.mp_company_name, r.mp_address, r.latitude, r.longitude);
        if (expected && 'title' in expected) checks.push(...checkGosomEntry(r, expected));
        else if (expected && 'name' in expected) checks.push(...checkCocliPlace(r, expected));
      }
      record(page, checks);
      // A card can lack an address on the page itself (a bus stop, an area): reported in the table, not a failure.
      expect(checks.filter((c) => !c.ok && !SOFT_FIELDS.has(c.field))).toEqual([]);
    });
  }

  afterAll(() => {
    const rows = [...tally.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([field, t]) => ({ field, pass: t.pass, total: t.total, rate: `${Math.round((t.pass / t.total) * 100)}%` }));
    const all = rows.reduce((s, r) => ({ pass: s.pass + r.pass, total: s.total + r.total }), { pass: 0, total: 0 });
    rows.push({
      field: 'ALL',
      pass: all.pass,
      total: all.total,
      rate: `${Math.round((all.pass / Math.max(1, all.total)) * 100)}%`,
    });
    console.log(
      `maps conformance: ${pages.length} pages\n${formatTable(rows)}${failures.length ? `\nmisses:\n${failures.join('\n')}` : ''}`,
    );
  });
});

function formatTable(rows: { field: string; pass: number; total: number; rate: string }[]): string {
  const w = Math.max(...rows.map((r) => r.field.length));
  return rows
    .map((r) => `${r.field.padEnd(w)}  ${String(r.pass).padStart(3)}/${String(r.total).padEnd(3)} ${r.rate}`)
    .join('\n');
}
