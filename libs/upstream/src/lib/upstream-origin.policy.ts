/**
 * Where a service's upstream lives: the real site, or the upstream simulator standing in for it. In simulator mode
 * (a base URL that is not the real site's) URLs of the real site given to /extract are re-pointed at the simulator,
 * path and query kept: `https://www.amazon.com/dp/B0TEST` → `http://127.0.0.1:8090/dp/B0TEST`. URLs of other hosts
 * are fetched as given.
 */
export class UpstreamOrigin {
  readonly base: URL;

  constructor(
    base: string,
    /** Hosts of the real site, e.g. /(^|\.)google\.[a-z.]+$/ */
    private readonly realHost: RegExp,
  ) {
    this.base = new URL(base);
  }

  /** True when the base is not the real site (the simulator, or another stand-in). */
  get simulated(): boolean {
    return !this.realHost.test(this.base.hostname);
  }

  /** A URL on the base: `path` may carry a query. */
  resolve(path: string): string {
    return new URL(path, this.base).toString();
  }

  /** The URL to fetch for one given to /extract. */
  rebase(url: string): string {
    if (!this.simulated) return url;
    const u = new URL(url);
    if (!this.realHost.test(u.hostname)) return url;
    return new URL(`${u.pathname}${u.search}`, this.base).toString();
  }
}

export const GOOGLE_HOST = /(^|\.)google\.[a-z]{2,3}(\.[a-z]{2})?$/i;
export const AMAZON_HOST = /(^|\.)amazon\.[a-z]{2,3}(\.[a-z]{2})?$/i;
