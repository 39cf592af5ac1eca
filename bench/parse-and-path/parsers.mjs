// Bench (a): each parser's pages/s on the shared fixtures, against a bare cheerio.load of the same pages (the most a
// cheerio-based parse can reach): cheerio's default (parse5) and its htmlparser2 mode. Reads the built parsers (npm run build). Prints one JSON line.
//
//   node bench/parse-and-path/parsers.mjs [--seconds 3]
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { load } from 'cheerio';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const { parseSearchPage, parseMapsSearch, parsePlacePage, parseProductPage } = await import(
  join(root, 'dist/libs/parsers/src/index.js')
);
const { values } = parseArgs({
  options: { seconds: { type: 'string', default: '5' }, before: { type: 'string' } },
});
// --before <dir>: another build's dist/ (e.g. main's), whose parsers run in the same alternating rounds.
const before = values.before ? await import(join(resolve(values.before), 'libs/parsers/src/index.js')) : undefined;
const seconds = Number(values.seconds);
const FIXTURES = process.env.TRAWL_FIXTURES_DIR ?? join(root, '..', 'shared', 'fixtures');
if (!existsSync(FIXTURES)) {
  console.error(`fixtures not found at ${FIXTURES} (set TRAWL_FIXTURES_DIR)`);
  process.exit(2);
}

const html = (cat, pattern) =>
  readdirSync(join(FIXTURES, cat))
    .filter((f) => f.endsWith('.html') && pattern.test(f))
    .map((f) => ({ name: f, text: readFileSync(join(FIXTURES, cat, f), 'utf8') }));

const calls = (P) => [
  (p) => P.parseSearchPage(p),
  (p) => P.parseMapsSearch(p, { q: 'q', hl: 'en', requestUrl: 'https://www.google.com/maps/search/q' }),
  (p) => P.parsePlacePage(p, { url: 'https://www.google.com/maps/place/x' }),
  (p) => P.parseProductPage(p, { url: 'https://www.amazon.com/dp/B000000000' }),
];
const now = calls({ parseSearchPage, parseMapsSearch, parsePlacePage, parseProductPage });
const then = before ? calls(before) : [];
const parsers = [
  { name: 'search', pages: html('serp', /./), parse: now[0], before: then[0] },
  { name: 'maps-search', pages: html('maps', /-search-/), parse: now[1], before: then[1] },
  { name: 'maps-place', pages: html('maps', /-place-/), parse: now[2], before: then[2] },
  { name: 'retail', pages: html('retail', /./), parse: now[3], before: then[3] },
];

/** CPU time of this process so far (user + system, ms): on a loaded machine, unlike wall time, it does not count
 * the time the process waited for a core. */
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/**
 * Pages per second of each function over the same pages, measured in alternating blocks for about `seconds`, after a
 * warm-up, so all see the same machine load: by wall time, and by CPU time (`cpu`, what a loaded machine distorts
 * least). A block is one function over the pages, repeated for at least `BLOCK_MS`: each function then pays for the
 * collections of its own garbage, as it would in a server doing only that work. (Alternating page by page charged each
 * function for the previous one's garbage: a parse5 load of a 700 KB page leaves tens of MB behind, collected in
 * whatever ran next.) Single runs still differ by a third either way on a quiet machine: quote medians of several.
 */
const BLOCK_MS = 250;
function rates(pages, ...fns) {
  for (let i = 0; i < 3; i++) for (const p of pages) for (const fn of fns) fn(p.text);
  const spent = fns.map(() => 0);
  const cpu = fns.map(() => 0);
  const done = fns.map(() => 0);
  const until = performance.now() + seconds * 1000;
  while (performance.now() < until) {
    fns.forEach((fn, k) => {
      const t = performance.now();
      const c = cpuMs();
      do {
        for (const p of pages) fn(p.text);
        done[k] += pages.length;
      } while (performance.now() - t < BLOCK_MS);
      cpu[k] += cpuMs() - c;
      spent[k] += performance.now() - t;
    });
  }
  const perSecond = (ms, k) => (done[k] * 1000) / ms;
  return Object.assign(spent.map(perSecond), { cpu: cpu.map(perSecond) });
}

const results = [];
for (const p of parsers) {
  // Only pages the parser accepts (captcha and foreign pages throw by design).
  const ok = p.pages.filter((page) => {
    try {
      p.parse(page.text);
      return true;
    } catch {
      return false;
    }
  });
  if (ok.length === 0) continue;
  // cheerio.load as is (parse5), and with htmlparser2 (what a parser may choose for speed).
  const measured = rates(
    ok,
    p.parse,
    (t) => load(t),
    (t) => load(t, { xml: { xmlMode: false, decodeEntities: true } }),
    ...(p.before ? [p.before] : []),
  );
  const [parse, cheerio, cheerioHp2, parseBefore] = measured;
  const [cpuParse, , cpuHp2, cpuBefore] = measured.cpu;
  const kb = ok.reduce((s, x) => s + x.text.length, 0) / ok.length / 1024;
  results.push({
    parser: p.name,
    pages: ok.length,
    avgPageKB: Math.round(kb),
    parsePagesPerSecond: Math.round(parse * 10) / 10,
    cheerioLoadPagesPerSecond: Math.round(cheerio * 10) / 10,
    ratioToCheerioLoad: Math.round((parse / cheerio) * 100) / 100,
    cheerioLoadHtmlparser2PagesPerSecond: Math.round(cheerioHp2 * 10) / 10,
    ratioToCheerioLoadHtmlparser2: Math.round((parse / cheerioHp2) * 100) / 100,
    cpuRatioToCheerioLoadHtmlparser2: Math.round((cpuParse / cpuHp2) * 100) / 100,
    ...(parseBefore
      ? {
          beforePagesPerSecond: Math.round(parseBefore * 10) / 10,
          beforeRatioToCheerioLoadHtmlparser2: Math.round((parseBefore / cheerioHp2) * 100) / 100,
          beforeCpuRatioToCheerioLoadHtmlparser2: Math.round((cpuBefore / cpuHp2) * 100) / 100,
        }
      : {}),
  });
}
console.log(JSON.stringify({ bench: 'parsers', seconds, results }));
