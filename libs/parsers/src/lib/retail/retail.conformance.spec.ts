// Conformance: every real Amazon product page in ../shared/fixtures/retail (2019–2026 layouts, amazon.com and
// amazon.ae, one with its script bodies emptied). Pages with an *.expected.json are checked against the source
// project's values, mapped to our field names (see EXPECTED_FIELDS); title, price and rating not covered by expected
// values get plausibility checks, every page's ASIN must match its file name, and the core fields must come out the
// same from the page with its scripts and embedded price JSON removed. A per-field pass-rate table and a fill-rate table are printed.
import { afterAll, describe, expect, it } from '@jest/globals';
import type { RetailRecord } from '@trawl/contracts';
import { fixturesAvailable, listFixtures, readExpected, readFixture } from '../../testing/fixtures.reader.js';
import { parseProductPage } from './retail-page.parser.js';

type Check = { field: string; pass: boolean; detail: string };
type Expected = Record<string, unknown>;

const available = fixturesAvailable('retail');
const pages = listFixtures('retail', '.html');
const results = new Map<string, Check[]>();
const records: RetailRecord[] = [];

/** `retail-…-amazon-co-uk-B0…-name.html` → `{ url: https://www.amazon.co.uk/dp/B0…, asin }`. */
function pageContext(file: string): { url: string; asin: string | undefined } {
  const m = /amazon-([a-z-]+?)-([A-Z0-9]{10})(?:-|\.html$)/.exec(file);
  const tld = (m?.[1] ?? 'com').replace(/-/g, '.');
  const asin = m?.[2];
  return { url: `https://www.amazon.${tld}/dp/${asin ?? ''}`, asin };
}

const eq = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const near = (a: number | null | undefined, b: number) => typeof a === 'number' && Math.abs(a - b) < 0.005;

/**
 * The source project's expected keys (a4fr/AmazonParser, metascraper-shopping) → checks on our record. Keys not
 * listed here (seller_id, seller_profile_url, stock quantity, the `_about` note) have no field of ours.
 */
const EXPECTED_FIELDS: Record<string, (r: RetailRecord, v: unknown) => Check[]> = {
  title: (r, v) => [{ field: 'title', pass: r.title === v, detail: `${r.title} vs ${String(v)}` }],
  brand: (r, v) => [{ field: 'brand', pass: r.brand === v, detail: `${r.brand} vs ${String(v)}` }],
  price: (r, v) => {
    const p = v as { value?: number; currency?: string } | number;
    const value = typeof p === 'number' ? p : (p.value ?? NaN);
    const checks: Check[] = [
      { field: 'price', pass: near(r.price?.value, value), detail: `${r.price?.value} vs ${value}` },
    ];
    if (typeof p === 'object' && p.currency) {
      checks.push({
        field: 'price.currency',
        pass: r.price?.currency === p.currency,
        detail: `${r.price?.currency} vs ${p.currency}`,
      });
    }
    return checks;
  },
  customers_reviews: (r, v) => {
    const cr = v as { count?: number; rate?: number };
    return [
      { field: 'reviews_count', pass: r.reviews_count === cr.count, detail: `${r.reviews_count} vs ${cr.count}` },
      { field: 'rating', pass: near(r.rating, cr.rate ?? NaN), detail: `${r.rating} vs ${cr.rate}` },
    ];
  },
  bought_past_mounth: (r, v) => [
    { field: 'bought_past_month', pass: r.bought_past_month === v, detail: `${r.bought_past_month} vs ${String(v)}` },
  ],
  date_first_available: (r, v) => [
    {
      field: 'date_first_available',
      pass: r.date_first_available === v,
      detail: `${r.date_first_available} vs ${String(v)}`,
    },
  ],
  image: (r, v) => [{ field: 'main_image', pass: r.main_image === v, detail: `${r.main_image} vs ${String(v)}` }],
  best_sellers_rank: (r, v) => [
    {
      field: 'best_sellers_rank',
      pass: eq(r.best_sellers_rank, v),
      detail: `${JSON.stringify(r.best_sellers_rank)} vs ${JSON.stringify(v)}`,
    },
  ],
  product_bundles: (r, v) => {
    const ours = Object.fromEntries(r.variants.map((x) => [x.asin, x.label]));
    const want = v as Record<string, string>;
    const missing = Object.entries(want).filter(([asin, label]) => ours[asin] !== label);
    return [
      { field: 'variants', pass: missing.length === 0, detail: `missing or different: ${JSON.stringify(missing)}` },
    ];
  },
  seller_detail: (r, v) => {
    const s = v as { seller_name?: string };
    return [{ field: 'seller', pass: r.seller === s.seller_name, detail: `${r.seller} vs ${s.seller_name}` }];
  },
  stock_availability: (r, v) => {
    const s = v as { status?: boolean };
    return [{ field: 'in_stock', pass: r.in_stock === s.status, detail: `${r.in_stock} vs ${s.status}` }];
  },
  // Names other scrapers use for the same values, so a page added with such an expected file is checked too.
  name: (r, v) => EXPECTED_FIELDS.title(r, v),
  asin: (r, v) => [{ field: 'asin', pass: r.asin === v, detail: `${r.asin} vs ${String(v)}` }],
  rating: (r, v) => [{ field: 'rating', pass: near(r.rating, Number(v)), detail: `${r.rating} vs ${String(v)}` }],
  stars: (r, v) => EXPECTED_FIELDS.rating(r, v),
  reviews_count: (r, v) => [
    { field: 'reviews_count', pass: r.reviews_count === Number(v), detail: `${r.reviews_count} vs ${String(v)}` },
  ],
  review_count: (r, v) => EXPECTED_FIELDS.reviews_count(r, v),
  ratings_count: (r, v) => EXPECTED_FIELDS.reviews_count(r, v),
  currency: (r, v) => [
    { field: 'price.currency', pass: r.price?.currency === v, detail: `${r.price?.currency} vs ${String(v)}` },
  ],
  list_price: (r, v) => [
    {
      field: 'list_price',
      pass: near(r.list_price?.value, Number(v)),
      detail: `${r.list_price?.value} vs ${String(v)}`,
    },
  ],
  in_stock: (r, v) => [{ field: 'in_stock', pass: r.in_stock === v, detail: `${r.in_stock} vs ${String(v)}` }],
  seller: (r, v) => [{ field: 'seller', pass: r.seller === v, detail: `${r.seller} vs ${String(v)}` }],
  main_image: (r, v) => EXPECTED_FIELDS.image(r, v),
  categories: (r, v) => [
    {
      field: 'categories',
      pass: eq(r.categories, v),
      detail: `${JSON.stringify(r.categories)} vs ${JSON.stringify(v)}`,
    },
  ],
  features: (r, v) => {
    const want = (Array.isArray(v) ? v : []).map((f) => String(f).replace(/\s+/g, ' ').trim());
    const missing = want.filter((f) => !r.features.includes(f));
    return [{ field: 'features', pass: missing.length === 0, detail: `missing: ${JSON.stringify(missing)}` }];
  },
};
EXPECTED_FIELDS.bullet_points = EXPECTED_FIELDS.features;

/** Checks for a page without expected values: present and plausible, or absent where the page says so. */
function plausibility(r: RetailRecord, html: string): Check[] {
  const noReviews = /No customer reviews/i.test(html);
  return [
    { field: 'title', pass: r.title.length >= 10 && !/amazon\.|robot check/i.test(r.title), detail: r.title },
    {
      field: 'price',
      pass: r.price
        ? r.price.value > 0 && r.price.value < 100_000 && /^[A-Z]{3}$/.test(r.price.currency) && /\d/.test(r.price.raw)
        : r.in_stock === false,
      detail: `${JSON.stringify(r.price)} (in_stock ${r.in_stock})`,
    },
    {
      field: 'rating',
      pass:
        r.rating !== null
          ? r.rating >= 1 && r.rating <= 5 && (r.reviews_count ?? 0) > 0
          : noReviews && r.reviews_count === null,
      detail: `${r.rating} / ${r.reviews_count} reviews (page says no reviews: ${noReviews})`,
    },
  ];
}

describe('retail conformance: real Amazon product pages', () => {
  if (!available || pages.length === 0) {
    it('is skipped: no retail fixtures (set TRAWL_FIXTURES_DIR)', () => {
      console.warn('[retail conformance] skipped: no retail/*.html under the fixtures directory');
      expect(pages).toEqual([]);
    });
    return;
  }

  it.each(pages)('%s parses to a record that matches its expected values or passes the plausibility checks', (file) => {
    const base = file.replace(/\.html$/, '');
    const html = readFixture('retail', file);
    const ctx = pageContext(file);
    const record = parseProductPage(html, { url: ctx.url });
    records.push(record);

    const checks: Check[] = [
      { field: 'asin', pass: record.asin === ctx.asin, detail: `${record.asin} vs ${ctx.asin}` },
    ];
    const expected = readExpected('retail', base) as Expected | undefined;
    const unmapped: string[] = [];
    for (const [key, value] of Object.entries(expected ?? {})) {
      const map = EXPECTED_FIELDS[key];
      if (map) checks.push(...map(record, value));
      else if (!key.startsWith('_')) unmapped.push(key);
    }
    if (unmapped.length > 0)
      console.log(`[retail conformance] ${file}: expected keys with no field of ours: ${unmapped.join(', ')}`);
    // Robustness: with every script body and the embedded price JSON removed (as one real page was saved), the DOM
    // layers alone must give the same core fields.
    const stripped = parseProductPage(withoutScripts(html), { url: ctx.url });
    const core = (r: RetailRecord) =>
      JSON.stringify([
        r.asin,
        r.title,
        r.brand,
        r.price?.value,
        r.price?.currency,
        r.rating,
        r.reviews_count,
        r.in_stock,
        r.seller,
        r.main_image,
      ]);
    checks.push({
      field: 'same without scripts',
      pass: core(stripped) === core(record),
      detail: `${core(stripped)} vs ${core(record)}`,
    });
    // Title, price and rating are checked for plausibility wherever no expected value covers them.
    checks.push(...plausibility(record, html).filter((p) => !checks.some((c) => c.field === p.field)));
    results.set(file, checks);

    expect(checks.filter((c) => !c.pass)).toEqual([]);
  });

  afterAll(() => {
    const byField = new Map<string, { passed: number; total: number }>();
    for (const checks of results.values()) {
      for (const c of checks) {
        const row = byField.get(c.field) ?? { passed: 0, total: 0 };
        row.total++;
        if (c.pass) row.passed++;
        byField.set(c.field, row);
      }
    }
    const passRate = [...byField.entries()].map(([field, { passed, total }]) => ({
      field,
      passed,
      total,
      rate: `${Math.round((100 * passed) / total)}%`,
    }));
    console.log(`[retail conformance] checks per field over ${results.size} pages\n` + table(passRate));

    const filled = (v: unknown) =>
      v !== null &&
      v !== '' &&
      !(Array.isArray(v) && v.length === 0) &&
      !(typeof v === 'object' && v !== null && Object.keys(v).length === 0);
    const fields = records.length > 0 ? (Object.keys(records[0]) as (keyof RetailRecord)[]) : [];
    const fillRate = fields.map((field) => {
      const n = records.filter((r) => filled(r[field])).length;
      return { field, filled: n, pages: records.length, rate: `${Math.round((100 * n) / records.length)}%` };
    });
    console.log('[retail conformance] fields filled (not null/empty) per page\n' + table(fillRate));
  });
});

function withoutScripts(html: string): string {
  return html
    .replace(/(<script\b[^>]*>)[\s\S]*?(<\/script>)/gi, '$1$2')
    .replace(/(<style\b[^>]*>)[\s\S]*?(<\/style>)/gi, '$1$2')
    .replace(/twister-plus-buying-options-price-data/g, 'removed-price-data');
}

function table(rows: Record<string, string | number>[]): string {
  if (rows.length === 0) return '(no rows)';
  const cols = Object.keys(rows[0]);
  const width = cols.map((c) => Math.max(c.length, ...rows.map((r) => String(r[c]).length)));
  const line = (cells: string[]) => cells.map((s, i) => s.padEnd(width[i])).join(' | ');
  return [
    line(cols),
    width.map((w) => '-'.repeat(w)).join('-|-'),
    ...rows.map((r) => line(cols.map((c) => String(r[c])))),
  ].join('\n');
}
