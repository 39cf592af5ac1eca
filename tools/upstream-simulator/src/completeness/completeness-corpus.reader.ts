// The two corpora the field-completeness figures are measured on: the real pages in ../shared/fixtures (not ours,
// never copied into the repo; absent → skipped) and the simulator's locale matrix (nine locales, every page kind).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  buildMapsSearchUrl,
  buildSearchUrl,
  parseMapsSearch,
  parsePlacePage,
  parseProductPage,
  parseSearchPage,
  type ParserName,
} from '@trawl/parsers';
import { mapsPlacePage, mapsSearchRequestFromUrl, mapsSearchResponse, simulatedPlaceIds } from '../pages/maps.page.js';
import { retailProductPage } from '../pages/retail.page.js';
import { renderSearchPage, searchParamsFromUrl } from '../pages/search.page.js';
import { SIM_LOCALES } from '../pages/sim-locales.constants.js';

export type Corpus = Record<ParserName, unknown[]>;

const emptyCorpus = (): Corpus => ({ search: [], 'maps-search': [], 'maps-place': [], retail: [] });

const SIM_BASE = 'http://127.0.0.1:4010';
const QUERIES = [
  'coffee',
  'electric bikes',
  'sourdough starter',
  'chess',
  'solar panels',
  'tea',
  'jazz',
  'kayak',
  'python',
  'tango',
];
const ASINS = ['B0DBZPXJRH', 'B09V366BDY', 'B0TEST0001', 'B0TEST0002', 'B0TEST0003'];
const LL = '@40.7128,-74.006,14z';

/** Parses what a page gives; a page the parser refuses (captcha, block) is not a completeness sample. */
function tryParse(parse: () => unknown): unknown[] {
  try {
    return [parse()];
  } catch {
    return [];
  }
}

/** Every page of the shared real-page fixtures, parsed by its kind; undefined when the directory is absent. */
export function sharedFixtureRecords(dir: string): Corpus | undefined {
  if (!existsSync(dir)) return undefined;
  const corpus = emptyCorpus();
  const list = (category: string): string[] =>
    existsSync(join(dir, category))
      ? readdirSync(join(dir, category))
          .filter((f) => /\.(html|json)$/.test(f) && !f.endsWith('.expected.json'))
          .sort()
      : [];
  for (const file of list('serp')) {
    corpus.search.push(...tryParse(() => parseSearchPage(readFileSync(join(dir, 'serp', file), 'utf8'))));
  }
  for (const file of list('maps')) {
    const input = readFileSync(join(dir, 'maps', file), 'utf8');
    const base = file.replace(/\.(html|json)$/, '');
    if (/-search-/.test(base)) {
      corpus['maps-search'].push(
        ...tryParse(() =>
          parseMapsSearch(input, {
            q: 'completeness',
            hl: 'en',
            requestUrl: `https://www.google.com/maps/search/${base}`,
          }),
        ),
      );
    } else {
      corpus['maps-place'].push(
        ...tryParse(() => parsePlacePage(input, { url: `https://www.google.com/maps/place/${base}` })),
      );
    }
  }
  for (const file of list('retail')) {
    const m = /amazon-([a-z-]+?)-([A-Z0-9]{10})(?:-|\.html$)/.exec(file);
    const url = `https://www.amazon.${(m?.[1] ?? 'com').replace(/-/g, '.')}/dp/${m?.[2] ?? ''}`;
    corpus.retail.push(...tryParse(() => parseProductPage(readFileSync(join(dir, 'retail', file), 'utf8'), { url })));
  }
  return corpus;
}

/** The simulator's pages in every locale of the matrix, parsed back. */
export function localeMatrixRecords(): Corpus {
  const corpus = emptyCorpus();
  for (const l of SIM_LOCALES) {
    for (const q of QUERIES) {
      const url = new URL(buildSearchUrl(SIM_BASE, { q, hl: l.hl, gl: l.gl }));
      corpus.search.push(parseSearchPage(renderSearchPage(searchParamsFromUrl(url))));
    }
    const requestUrl = buildMapsSearchUrl(SIM_BASE, { q: 'coffee', ll: LL, hl: l.hl, gl: l.gl, num: 5 });
    const req = mapsSearchRequestFromUrl(new URL(requestUrl));
    corpus['maps-search'].push(
      parseMapsSearch(mapsSearchResponse(req), { q: 'coffee', hl: l.hl, gl: l.gl, ll: LL, requestUrl }),
    );
    for (const id of simulatedPlaceIds(req)) {
      corpus['maps-place'].push(
        parsePlacePage(mapsPlacePage(id, l.hl, l.gl), { url: `https://www.google.com/maps/place/?q=place_id:${id}` }),
      );
    }
    for (const asin of ASINS) {
      corpus.retail.push(
        parseProductPage(retailProductPage(asin, { locale: l.tag }), { url: `https://${l.retail.host}/dp/${asin}` }),
      );
    }
  }
  return corpus;
}
