// Crafted pages against the four upstream parsers: each family (unclosed scripts, repeated assignment names, deep
// nesting, unclosed JSON) at n and 4n characters. The work a parse does is counted as it happens (characters the
// text scans visit, nodes built, every read of the tree after the load: see ScanMeter), not timed: a linear parse
// does about 4x the work on 4x the input, a quadratic one about 16x. Times are measured in bench/parse-and-path.
import { describe, expect, it } from '@jest/globals';
import { TrawlError } from '@trawl/contracts';
import { parseMapsSearch } from '../maps/maps-search.parser.js';
import { parsePlacePage } from '../maps/place-page.parser.js';
import { parseProductPage } from '../retail/retail-page.parser.js';
import { parseSearchPage } from '../search/search-page.parser.js';
import { MAX_DOM_DEPTH, MAX_PARSER_DEPTH } from './page-dom.factory.js';
import { newScanMeter, workOf, type ScanMeter } from './scan-meter.types.js';
import { CRAFTED_FAMILIES, craftedPage, type UpstreamParserName } from '../../testing/crafted-pages.builder.js';

const PARSERS: Record<UpstreamParserName, (page: string, meter: ScanMeter) => unknown> = {
  search: (page, meter) => parseSearchPage(page, { meter }),
  'maps-place': (page, meter) => parsePlacePage(page, { url: 'https://www.google.com/maps/place/x', meter }),
  'maps-search': (page, meter) =>
    parseMapsSearch(page, { q: 'x', hl: 'en', requestUrl: 'https://www.google.com/maps/search/x', meter }),
  retail: (page, meter) => parseProductPage(page, { url: 'https://www.amazon.com/dp/B000000000', meter }),
};

/** Runs a parse and returns its work; the parse must answer (a result or a TrawlError), never anything else. */
function workOn(
  parser: UpstreamParserName,
  page: string,
  meter = newScanMeter(),
): { work: number; meter: ScanMeter; outcome: string } {
  let outcome = 'record';
  try {
    PARSERS[parser](page, meter);
  } catch (e) {
    expect(e).toBeInstanceOf(TrawlError);
    outcome = (e as TrawlError).code;
  }
  return { work: workOf(meter), meter, outcome };
}

const N = 64 * 1024;

describe.each(Object.keys(PARSERS) as UpstreamParserName[])('%s parser on crafted pages', (parser) => {
  it.each(CRAFTED_FAMILIES)('does linear work on %s (4x the input, at most 5x the work)', (family) => {
    const small = craftedPage(parser, family, N);
    const large = craftedPage(parser, family, 4 * N);
    expect(large.length).toBeGreaterThanOrEqual(4 * N);
    const a = workOn(parser, small);
    const b = workOn(parser, large);
    expect(a.work).toBeGreaterThan(0);
    expect(b.work / a.work).toBeLessThanOrEqual(5);
    // A bounded amount of work per input character, whatever the family (deep nesting: about 50, two thirds of it the
    // parser's stack of open elements, up to MAX_PARSER_DEPTH entries moved per open tag).
    expect(b.work / large.length).toBeLessThan(64);
    expect(b.meter.maxDepth).toBeLessThanOrEqual(MAX_DOM_DEPTH);
    expect(b.meter.stack / b.meter.nodes).toBeLessThanOrEqual(2 * (MAX_PARSER_DEPTH + 1));
  });
});

// Issue 19 / ADR 0020: 10 MB of deep nesting through the search parser finishes outside the parse pool too. Before
// the parser's own stack was capped (MAX_PARSER_DEPTH), every open tag moved the whole stack of open elements: 4x the
// input was 16x the stack work, and 10 MB ran for minutes. Selector work at these sizes is counted too (640 KB to
// 2.5 MB); at 10 MB the load, the stack and the scans are (counting every tree read makes a parse several times
// slower, so 2.5 MB to 10 MB counts the rest).
describe('search parser on deep nesting up to 10 MB', () => {
  const MB = 1024 * 1024;
  it.each([
    { from: 0.625 * MB, countReads: true },
    { from: 2.5 * MB, countReads: false },
  ])(
    'answers with at most 5x the work on 4x the input, from $from characters (tree reads counted: $countReads)',
    ({ from, countReads }) => {
      const small = craftedPage('search', 'deep-nesting', from);
      const large = craftedPage('search', 'deep-nesting', 4 * from);
      const a = workOn('search', small, { ...newScanMeter(), countReads });
      const b = workOn('search', large, { ...newScanMeter(), countReads });
      expect([a.outcome, b.outcome]).toEqual(['record', 'record']);
      expect(a.meter.stack).toBeGreaterThan(0);
      expect(b.work / a.work).toBeLessThanOrEqual(5);
      expect(b.meter.stack / a.meter.stack).toBeLessThanOrEqual(5);
      expect(b.work / large.length).toBeLessThan(64);
    },
    300_000,
  );
});
