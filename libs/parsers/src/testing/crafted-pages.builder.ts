// Crafted hostile pages for the upstream parsers (search, maps place, maps search, retail): each family repeats a
// unit that made an earlier parser rescan the rest of the page, inside a shell that gets the page past the parser's
// first checks (so the page reaches the scans it is meant to stress). Used by the parsers' linearity tests, the
// extractors' responsiveness tests and bench/parse-and-path.

export type UpstreamParserName = 'search' | 'maps-place' | 'maps-search' | 'retail';

export const CRAFTED_FAMILIES = ['unclosed-scripts', 'repeated-assignments', 'deep-nesting', 'unclosed-json'] as const;
export type CraftedFamily = (typeof CRAFTED_FAMILIES)[number];

const SHELLS: Record<UpstreamParserName, [string, string]> = {
  search: [
    '<html lang="en"><head><title>x - Google Search</title></head><body><form action="/search"><input name="q" value="x"></form><div id="search"><div id="rso">',
    '</div></div></body></html>',
  ],
  'maps-place': [
    '<html lang="en"><head><title>x - Google Maps</title></head><body><noscript>Enable JavaScript to see Google Maps.</noscript><div role="main"><h1>x</h1>',
    '</div></body></html>',
  ],
  'maps-search': [
    '<html lang="en"><head><title>Google Maps</title></head><body><noscript>Enable JavaScript to see Google Maps.</noscript><div role="feed">',
    '</div></body></html>',
  ],
  retail: [
    '<html lang="en"><head><title>x</title></head><body><div id="dp"><span id="productTitle">x</span><div id="feature-bullets"><ul>',
    '</ul></div></div></body></html>',
  ],
};

/** The repeated unit of each family (with what opens it once, before the repeats). */
const UNITS: Record<CraftedFamily, { head: string; unit: string }> = {
  // Every `<script` opens again with no close tag anywhere after it.
  'unclosed-scripts': { head: '', unit: '<script>var a=[1];' },
  // Every name that parsers look for, assigned a literal that never closes, again and again.
  'repeated-assignments': {
    head: '<script>',
    unit: `APP_INITIALIZATION_STATE=[var s='data:image/png;base64,AAAA';var ii=[google.ldi={"colorImages":{"dimensionValuesDisplayData":[`,
  },
  // Elements that never close (maps cards, feeds, links, list items), nested as deep as the page is long.
  'deep-nesting': {
    head: '',
    unit: '<div role="article" aria-label="x"><div role="feed"><a href="/maps/place/x/data=!3d1!4d2"><li><span>4.5</span>',
  },
  // One assignment whose JSON opens arrays and a string and never closes.
  'unclosed-json': { head: '<script>APP_INITIALIZATION_STATE=[[[', unit: '[[[[["a",[1,{"b":[' },
};

/** A crafted page of at least `chars` characters for `parser`. */
export function craftedPage(parser: UpstreamParserName, family: CraftedFamily, chars: number): string {
  const [open, close] = SHELLS[parser];
  const { head, unit } = UNITS[family];
  const fixed = open.length + head.length + close.length;
  const repeats = Math.max(1, Math.ceil((chars - fixed) / unit.length));
  return open + head + unit.repeat(repeats) + close;
}
