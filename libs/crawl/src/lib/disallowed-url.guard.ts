import { TrawlError } from '@trawl/contracts';
import { checkUrl, type AllowList } from '@trawl/safe-fetch';

/**
 * URL_NOT_ALLOWED for a crawl's or a map's start URL that the SSRF guard refuses, before anything is recorded or
 * fetched; a name that does not resolve is left to the fetches (it may resolve later, and fails them then).
 */
export async function refuseDisallowed(url: string, allow: AllowList): Promise<void> {
  try {
    await checkUrl(url, { allow });
  } catch (e) {
    if (e instanceof TrawlError && e.code === 'URL_NOT_ALLOWED') throw e;
  }
}
