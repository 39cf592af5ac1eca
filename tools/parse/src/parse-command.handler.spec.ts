import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { parsePage } from './parse-command.handler.js';

// The shared real pages (not copied into the repo): ../shared/fixtures, or TRAWL_FIXTURES_DIR.
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const FIXTURES = process.env.TRAWL_FIXTURES_DIR ?? join(root, '..', 'shared', 'fixtures');
const have = existsSync(FIXTURES);
if (!have) console.warn(`[fixtures] ${FIXTURES} not found: skipping the parse CLI checks on real pages`);
const page = (category: string, name: string) => readFileSync(join(FIXTURES, category, name), 'utf8');

describe('parsePage (the parse CLI)', () => {
  (have ? it : it.skip)('gives the web search result with positions from --start', () => {
    const data = parsePage('search', page('serp', 'serp-apify-2020-buy-ray-ban-desktop.html'), {
      url: 'file:///x.html',
      start: 10,
    });
    expect(data.results.length).toBeGreaterThan(3);
    expect(data.results[0].realPosition).toBe(11);
    expect(data.results[0].link).toMatch(/^https?:\/\//);
  });

  (have ? it : it.skip)('wraps a maps search as the maps search response, taking the query from the URL', () => {
    const url = 'https://www.google.com/maps/search/griffith+observatory/@34.11,-118.30,14z';
    const data = parsePage('maps-search', page('maps', 'maps-cocli-2026-search-griffith-observatory.html'), {
      url,
      ll: '@34.11,-118.30,14z',
    });
    expect(data).toMatchObject({ status: 'completed', stacktrace: null });
    expect(data.totalResults).toBe(data.data.organicResults.length);
    expect(data.data.searchParameters.q).toBe('griffith observatory');
    expect(Date.parse(data.finishedOn)).not.toBeNaN();
  });

  (have ? it : it.skip)('wraps a place page and a product page as POST /extract data', () => {
    const place = parsePage('maps-place', page('maps', 'maps-cocli-2026-place-griffith-observatory.html'), {
      url: 'https://www.google.com/maps/place/x',
    });
    expect(place).toMatchObject({
      status: 'completed',
      stacktrace: '',
      params: { type: 'mp-maps', url: 'https://www.google.com/maps/place/x' },
    });
    expect(place.data.mp_company_name).toMatch(/Griffith/);
    const product = parsePage(
      'retail',
      page('retail', 'retail-amazonparser-2025-amazon-ae-B0DBZPXJRH-jetech-iphone16promax-protector.html'),
      {
        url: 'https://www.amazon.ae/dp/B0DBZPXJRH',
      },
    );
    expect(product.params.type).toBe('retail');
    expect(product.data.title.length).toBeGreaterThan(5);
  });
});
