/** A clock in epoch milliseconds; tests pass a stub. */
export type Clock = () => number;

export interface ProxyRotationOptions {
  /** How long a proxy that got blocked is set aside, ms. */
  cooldownMs?: number;
  now?: Clock;
}

/**
 * Splits a PROXY_URLS entry into the proxy's URL and the countries it serves: an optional fragment of ISO 3166
 * codes, `http://user:pass@host:port#DE` or `#DE+AT` (ADR 0019). No fragment: no country is known for it.
 */
export function parseProxyEntry(entry: string): { url: string; countries: string[] } {
  const at = entry.indexOf('#');
  if (at < 0) return { url: entry, countries: [] };
  const countries = entry
    .slice(at + 1)
    .split(/[+,]/)
    .map((c) => c.trim().toUpperCase())
    .filter((c) => /^[A-Z]{2}$/.test(c));
  return { url: entry.slice(0, at), countries };
}

/**
 * Round-robin over proxy URLs. A proxy reported blocked is set aside until its cool-down ends; when every proxy is
 * cooling down, the one whose cool-down ends first is used anyway (a request through a tired proxy beats none).
 */
export class ProxyRotation {
  private readonly cooldownMs: number;
  private readonly now: Clock;
  private readonly restingUntil = new Map<string, number>();
  private cursor = 0;
  private readonly urls: readonly string[];
  /** The countries each proxy serves, as its entry's fragment says. */
  private readonly countries = new Map<string, readonly string[]>();

  /** `entries`: proxy URLs, each optionally followed by the countries it serves (`#DE+AT`, parseProxyEntry). */
  constructor(entries: readonly string[], options: ProxyRotationOptions = {}) {
    this.cooldownMs = options.cooldownMs ?? 5 * 60_000;
    this.now = options.now ?? Date.now;
    const parsed = entries.map(parseProxyEntry);
    this.urls = parsed.map((p) => p.url);
    for (const p of parsed) this.countries.set(p.url, p.countries);
  }

  get size(): number {
    return this.urls.length;
  }

  /** Every proxy, cooling or not (e.g. for a per-proxy gauge). */
  all(): readonly string[] {
    return this.urls;
  }

  /**
   * The next proxy to use, or undefined when there are none. With `country`: the next of those that serve it, when
   * any does (by the same rules); else the next of all.
   */
  next(country?: string): string | undefined {
    if (country) {
      const code = country.toUpperCase();
      const serving = this.urls.filter((u) => this.countries.get(u)?.includes(code));
      if (serving.length > 0) return this.nextOf(serving);
    }
    return this.nextOf(this.urls);
  }

  /** The countries `url` serves (empty: not said). */
  countriesOf(url: string): readonly string[] {
    return this.countries.get(url) ?? [];
  }

  /** Round-robin over `candidates` (a subset of the list, in its order), resting ones skipped while others are ready. */
  private nextOf(candidates: readonly string[]): string | undefined {
    if (candidates.length === 0) return undefined;
    const now = this.now();
    for (let i = 0; i < this.urls.length; i++) {
      const at = (this.cursor + i) % this.urls.length;
      const url = this.urls[at];
      if (!candidates.includes(url)) continue;
      const until = this.restingUntil.get(url);
      if (until === undefined || until <= now) {
        this.restingUntil.delete(url);
        this.cursor = (at + 1) % this.urls.length;
        return url;
      }
    }
    let best = candidates[0];
    for (const url of candidates)
      if ((this.restingUntil.get(url) ?? 0) < (this.restingUntil.get(best) ?? 0)) best = url;
    return best;
  }

  /** Sets a proxy aside for the cool-down. */
  markBlocked(url: string): void {
    this.restingUntil.set(url, this.now() + this.cooldownMs);
  }

  /** Proxies currently cooling down. */
  resting(): string[] {
    const now = this.now();
    return this.urls.filter((u) => (this.restingUntil.get(u) ?? 0) > now);
  }
}
