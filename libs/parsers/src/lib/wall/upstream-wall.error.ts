import { TrawlError } from '@trawl/contracts';

/**
 * What an upstream answered with instead of the page asked for:
 * - `enable-javascript`: Google's 2025+ wall for clients that run no JavaScript (a `<noscript>` refresh to
 *   `/httpservice/retry/enablejs`; for maps, "Enable JavaScript to see Google Maps" on a page without content);
 * - `unusual-traffic`: a captcha / block page (Google's `/sorry/` "unusual traffic" page, Amazon's robot check);
 * - `consent`: Google's "Before you continue" cookie-consent interstitial (EU/EEA/UK);
 * - `javascript-challenge`: Amazon's AWS WAF JavaScript challenge (`gokuProps`, `AwsWafIntegration`);
 * - `throttling`: Amazon's 503 "something went wrong" page.
 */
export type WallKind = 'enable-javascript' | 'unusual-traffic' | 'consent' | 'javascript-challenge' | 'throttling';

/** Each wall in words an operator understands (error messages, "http: enable-JavaScript wall; browser: …"). */
export const WALL_NAMES: Readonly<Record<WallKind, string>> = {
  'enable-javascript': 'enable-JavaScript wall',
  'unusual-traffic': 'unusual-traffic page',
  consent: 'consent interstitial',
  'javascript-challenge': 'JavaScript challenge',
  throttling: 'throttling page',
};

/** Walls a real browser gets past (the same URL rendered in a browser is worth a try). */
export const BROWSER_PASSABLE_WALLS: ReadonlySet<WallKind> = new Set<WallKind>([
  'enable-javascript',
  'consent',
  'javascript-challenge',
]);

/** UPSTREAM_BLOCKED (retryable) that says which wall stopped the request; its message names the wall. */
export class UpstreamWallError extends TrawlError {
  constructor(
    readonly wall: WallKind,
    message: string,
  ) {
    super('UPSTREAM_BLOCKED', message);
    this.name = 'UpstreamWallError';
  }
}

/** The wall an error reports, if it is an UpstreamWallError. */
export function wallOf(error: unknown): WallKind | undefined {
  return error instanceof UpstreamWallError ? error.wall : undefined;
}
