// Bench (c): each upstream parser on crafted hostile pages (unclosed scripts, repeated assignment names, deep
// nesting, unclosed JSON; libs/parsers/src/testing/crafted-pages.builder.ts) of --mb megabytes, one parse each, in
// one process (no pool, no budget): the time a parse takes, and whether it answered (a record or a TrawlError).
// The linearity itself is proven by libs/parsers/src/lib/scan/crafted-pages.spec.ts (work counted, not timed).
//
//   node bench/parse-and-path/crafted.mjs [--mb 10]
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const P = await import(join(root, 'dist/libs/parsers/src/index.js'));
const { craftedPage, CRAFTED_FAMILIES } = await import(
  join(root, 'dist/libs/parsers/src/testing/crafted-pages.builder.js')
);
const { values } = parseArgs({ options: { mb: { type: 'string', default: '10' } } });
const chars = Math.round(Number(values.mb) * 1024 * 1024);

const PARSERS = {
  search: (p) => P.parseSearchPage(p),
  'maps-place': (p) => P.parsePlacePage(p, { url: 'https://www.google.com/maps/place/x' }),
  'maps-search': (p) => P.parseMapsSearch(p, { q: 'x', hl: 'en', requestUrl: 'https://www.google.com/maps/search/x' }),
  retail: (p) => P.parseProductPage(p, { url: 'https://www.amazon.com/dp/B000000000' }),
};

const results = [];
for (const [parser, parse] of Object.entries(PARSERS)) {
  for (const family of CRAFTED_FAMILIES) {
    const page = craftedPage(parser, family, chars);
    const t = performance.now();
    let outcome;
    try {
      parse(page);
      outcome = 'record';
    } catch (e) {
      outcome = e?.code ?? `${e?.name}: ${e?.message}`;
    }
    results.push({
      parser,
      family,
      mb: Math.round((page.length / 1048576) * 10) / 10,
      ms: Math.round(performance.now() - t),
      outcome,
    });
    console.error(JSON.stringify(results.at(-1)));
  }
}
console.log(JSON.stringify({ bench: 'crafted', results }));
