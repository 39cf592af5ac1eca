import {
  checkUrl,
  guardedLookup,
  parseAllowList,
  type AllowList,
  type ConnectLookup,
  type Resolver,
} from '@trawl/safe-fetch';
import { TrawlError } from '@trawl/contracts';

/**
 * SSRF guard for webhook URLs, on @trawl/safe-fetch: http(s) only, and every address the host resolves to must be
 * public unicast unless SSRF_ALLOW_HOSTS names the host or its network. `check` runs before a job is created and
 * before each delivery; `lookup` runs again when the connection is made (DNS rebinding).
 */
export class WebhookUrlGuard {
  private readonly allow: AllowList;
  /** A `lookup` for the HTTP client's connections that refuses what `check` refuses. */
  readonly lookup: ConnectLookup;

  constructor(
    allow: readonly string[] = [],
    private readonly resolve?: Resolver,
  ) {
    this.allow = parseAllowList(allow);
    this.lookup = guardedLookup(this.allow, resolve);
  }

  /**
   * Throws URL_NOT_ALLOWED (field `webhook`) for a URL that may not be called (a name with no public address, whether
   * internal or absent from DNS), or VALIDATION_FAILED (field `webhook`) when DNS itself fails.
   */
  async check(url: string): Promise<void> {
    try {
      await checkUrl(url, { allow: this.allow, ...(this.resolve ? { resolve: this.resolve } : {}) });
    } catch (e) {
      if (!(e instanceof TrawlError)) throw e;
      const code = e.code === 'URL_NOT_ALLOWED' ? 'URL_NOT_ALLOWED' : 'VALIDATION_FAILED';
      throw new TrawlError(code, `webhook may not be called: ${e.message}`, { field: 'webhook', cause: e });
    }
  }
}
