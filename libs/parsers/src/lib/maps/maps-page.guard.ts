// Tells block, captcha and consent interstitials (retry later) apart from pages we can parse, and maps pages from
// pages of another kind.
import { TrawlError } from '@trawl/contracts';
import type { ScanMeter } from '../scan/scan-meter.types.js';
import { matchesWithoutScripts } from '../scan/script-text.util.js';
import { UpstreamWallError, WALL_NAMES, type WallKind } from '../wall/upstream-wall.error.js';

/**
 * Wall markers, each with the literals (lower case) one of which it needs: a marker's pattern runs only on a page
 * that holds one of them (a case-insensitive literal search), over the lower-cased head of the page.
 */
const BLOCK_MARKERS: [string[], RegExp, WallKind, string][] = [
  [
    ['captcha-form', 'g-recaptcha', '/recaptcha/'],
    /id=["']?captcha-form|class=["'][^"']*g-recaptcha|\/recaptcha\/(api|enterprise)\.js/,
    'unusual-traffic',
    `its ${WALL_NAMES['unusual-traffic']} (captcha)`,
  ],
  [
    ['unusual traffic', '/sorry/index'],
    /our systems have detected unusual traffic|<title>[^<]*\/sorry\/index|(action|href|value)=["'][^"']*\/sorry\/index/,
    'unusual-traffic',
    `its ${WALL_NAMES['unusual-traffic']}`,
  ],
  [
    ['/save', 'before you continue', 'set_eom'],
    /action=["'](https:\/\/consent\.(google|youtube)\.[a-z.]+|[^"']*\/consent)\/save|<title>\s*before you continue|name=["']?set_eom/,
    'consent',
    `its ${WALL_NAMES.consent}`,
  ],
];

/** Asks for JavaScript (lower case): maps' own <noscript> line, or search's 2025 refresh to /httpservice/retry/enablejs. */
const ENABLE_JS = ['enable javascript to see google maps', '/httpservice/retry/enablejs'];
/** Content a maps page has when it is more than a shell: a result feed or a place panel in its markup… */
const MAPS_MARKUP = /role=["']?(feed|article)\b|<h1[\s>]|data-item-id=/i;
/** …or an embedded payload (the `)]}'`-prefixed JSON strings of APP_INITIALIZATION_STATE). */
const MAPS_PAYLOAD = /\)\]\}'/;

/** Rendered content in the markup (not in scripts). */
function hasMapsMarkup(html: string, meter?: ScanMeter): boolean {
  // Markup only: a script that builds the feed names it too, and a shell is not content.
  return matchesWithoutScripts(html, MAPS_MARKUP, meter);
}

/**
 * A case-insensitive search for a lower-case ASCII literal: the same answer as `text.toLowerCase().includes(needle)`
 * (no character outside ASCII lower-cases into these needles), without lower-casing the page first.
 */
function literalSearch(needle: string): (text: string) => boolean {
  const re = new RegExp(needle.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'), 'i');
  return (text) => re.test(text);
}

const BLOCK_NEEDS = BLOCK_MARKERS.map(([needs]) => needs.map(literalSearch));
/** Every literal of the first marker holds this one: a page without it skips that marker's three searches. */
const ANY_CAPTCHA = literalSearch('captcha');
const ENABLE_JS_NEEDS = ENABLE_JS.map(literalSearch);

/** The wall a maps answer is, with the message that names it. */
function mapsWallOf(input: string, meter?: ScanMeter): { wall: WallKind; message: string } | undefined {
  const head = input.length > 400_000 ? input.slice(0, 200_000) + input.slice(-200_000) : input;
  // Most pages hold none of a marker's literals: the page is lower-cased only for a marker's pattern.
  let lower: string | undefined;
  for (let i = 0; i < BLOCK_MARKERS.length; i++) {
    if (i === 0 && !ANY_CAPTCHA(head)) continue;
    const [, re, wall, what] = BLOCK_MARKERS[i];
    if (BLOCK_NEEDS[i].some((holds) => holds(head)) && re.test((lower ??= head.toLowerCase()))) {
      return { wall, message: `The maps upstream answered with ${what}` };
    }
  }
  // Every real maps page carries the <noscript> line; only a page without any content (no embedded payload, no
  // rendered markup) is the wall itself. The payload is looked for first: it is one search, and most pages have it.
  if (
    !isJsonInput(input) &&
    !MAPS_PAYLOAD.test(input) &&
    ENABLE_JS_NEEDS.some((holds) => holds(head)) &&
    !hasMapsMarkup(input, meter)
  ) {
    return {
      wall: 'enable-javascript',
      message: `The maps upstream answered with its ${WALL_NAMES['enable-javascript']} (a page without content that asks for JavaScript)`,
    };
  }
  return undefined;
}

/**
 * The wall a maps answer (HTML page or JSON body) is instead of content: `unusual-traffic`, `consent`,
 * `enable-javascript`; undefined otherwise. Pure.
 */
export function classifyMapsWall(input: string): WallKind | undefined {
  return mapsWallOf(input)?.wall;
}

/**
 * Throws UPSTREAM_BLOCKED (an UpstreamWallError naming the wall) when the page is a captcha, block or consent
 * interstitial, or the enable-JavaScript wall (a page without content that asks for JavaScript).
 */
export function assertNotBlocked(input: string, meter?: ScanMeter): void {
  const found = mapsWallOf(input, meter);
  if (found) throw new UpstreamWallError(found.wall, found.message);
}

/** Whether the input is JSON (maps endpoint body or an extracted state array) rather than HTML. */
export function isJsonInput(input: string): boolean {
  return /^\s*(\)\]\}'|\[|\{)/.test(input);
}

/** Whether an HTML page comes from the maps web client at all. */
export function isMapsHtml(html: string): boolean {
  return (
    html.includes('APP_INITIALIZATION_STATE') ||
    /<title>[^<]*Google Maps\s*<\/title>/i.test(html) ||
    /href="[^"]*\/maps\/place\//.test(html) ||
    /src="\/maps\/_\/js\//.test(html)
  );
}

export function notRecognised(what: string): TrawlError {
  return new TrawlError('PAGE_NOT_RECOGNISED', what);
}
