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
import { MAX_DOM_DEPTH } from './page-dom.factory.js';
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
function workOn(parser: UpstreamParserName, page: string): { work: number; meter: ScanMeter } {
  const meter = newScanMeter();
  try {
    PARSERS[parser](page, meter);
  } catch (e) {
    expect(e).toBeInstanceOf(TrawlError);
  }
  return { work: workOf(meter), meter };
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
    // A bounded amount of work per input character, whatever the family.
    expect(b.work / large.length).toBeLessThan(40);
    expect(b.meter.maxDepth).toBeLessThanOrEqual(MAX_DOM_DEPTH);
  });
});
