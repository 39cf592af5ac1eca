// Tells block, captcha and consent interstitials (retry later) apart from pages we can parse, and maps pages from
// pages of another kind.
import { TrawlError } from '@trawl/contracts';

const BLOCK_MARKERS: [RegExp, string][] = [
  [/id=["']?captcha-form|class=["'][^"']*g-recaptcha|\/recaptcha\/(api|enterprise)\.js/i, 'a captcha page'],
  [/our systems have detected unusual traffic|\/sorry\/index/i, 'an unusual-traffic block page'],
  [/action=["']https:\/\/consent\.(google|youtube)\.[a-z.]+\/save|<title>\s*Before you continue/i, 'a consent page'],
];

/** Throws UPSTREAM_BLOCKED when the page is a captcha, block or consent interstitial. */
export function assertNotBlocked(input: string): void {
  const head = input.length > 400_000 ? input.slice(0, 200_000) + input.slice(-200_000) : input;
  for (const [re, what] of BLOCK_MARKERS) {
    if (re.test(head)) throw new TrawlError('UPSTREAM_BLOCKED', `The maps upstream answered with ${what}`);
  }
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
