import { TrawlError } from '@trawl/contracts';
import { GOOGLE_HOST, type UpstreamOrigin } from './upstream-origin.policy.js';

/**
 * Whether a URL given to /extract as `mp-maps` or `mp-search` is one the maps parsers are for (ADR 0020): a Google
 * Maps URL (`https://www.google.<tld>/maps/…`, `https://maps.google.<tld>/…`, http or https), or, in simulator mode, any URL on the
 * service's own maps origin (MAPS_BASE_URL: the simulator or another stand-in the operator configured).
 */
export function isMapsUrl(url: URL, origin: UpstreamOrigin): boolean {
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return false;
  if (origin.simulated && url.origin === origin.base.origin) return true;
  if (!GOOGLE_HOST.test(url.hostname)) return false;
  return /^maps\./i.test(url.hostname) || url.pathname === '/maps' || url.pathname.startsWith('/maps/');
}

/** Throws VALIDATION_FAILED (field `url`) for a URL that is not a Google Maps URL nor on the maps origin. */
export function assertMapsUrl(url: string, origin: UpstreamOrigin, type: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TrawlError('VALIDATION_FAILED', 'url must be an absolute http(s) URL', { field: 'url' });
  }
  if (!isMapsUrl(parsed, origin)) {
    throw new TrawlError(
      'VALIDATION_FAILED',
      `type ${type} takes Google Maps URLs only (https://www.google.<tld>/maps/… or https://maps.google.<tld>/…); ${parsed.hostname} is not one`,
      { field: 'url' },
    );
  }
  return parsed;
}
