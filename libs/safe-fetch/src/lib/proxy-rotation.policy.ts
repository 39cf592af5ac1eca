/** A clock in epoch milliseconds; tests pass a stub. */
export type Clock = () => number;

export interface ProxyRotationOptions {
  /** How long a proxy that got blocked is set aside, ms. */
  cooldownMs?: number;
  now?: Clock;
  /** Most (scope, proxy) marks kept at once; past it the oldest go first (a bound on what callers' hosts can add). */
  maxMarks?: number;
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
 *
 * A mark is scoped: `markBlocked(proxy, scope)` sets the proxy aside only for `next(scope)` (the scope is the target's
 * host), so one caller's target answering 403 cannot bench a shared proxy for every other caller and host. A mark
 * with no scope (an operator's decision, not a target's answer) sets it aside for everyone.
 *
 * A proxy may say which countries it serves (parseProxyEntry); `next(scope, country)` then prefers those.
 */
export class ProxyRotation {
  private readonly cooldownMs: number;
  private readonly now: Clock;
  private readonly maxMarks: number;
  /** `${scope}\n${url}` (scope '' = every scope) → end of the cool-down. */
  private readonly restingUntil = new Map<string, number>();
  private cursor = 0;
  private readonly urls: readonly string[];
  /** The countries each proxy serves, as its entry's fragment says. */
  private readonly countries = new Map<string, readonly string[]>();

  /** `entries`: proxy URLs, each optionally followed by the countries it serves (`#DE+AT`, parseProxyEntry). */
  constructor(entries: readonly string[], options: ProxyRotationOptions = {}) {
    this.cooldownMs = options.cooldownMs ?? 5 * 60_000;
    this.now = options.now ?? Date.now;
    this.maxMarks = options.maxMarks ?? 10_000;
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
   * The next proxy to use for a target in `scope` (its host), or undefined when there are none. With `country`: the
   * next of those that serve it, when any does (by the same rules); else the next of all.
   */
  next(scope = '', country?: string): string | undefined {
    if (country) {
      const code = country.toUpperCase();
      const serving = this.urls.filter((u) => this.countries.get(u)?.includes(code));
      if (serving.length > 0) return this.nextOf(serving, scope);
    }
    return this.nextOf(this.urls, scope);
  }

  /** The countries `url` serves (empty: not said). */
  countriesOf(url: string): readonly string[] {
    return this.countries.get(url) ?? [];
  }

  /** Sets a proxy aside for the cool-down: for targets in `scope` only, or for all without one. */
  markBlocked(url: string, scope = ''): void {
    const now = this.now();
    const key = markKey(scope, url);
    this.restingUntil.delete(key); // re-inserted last: the map's order is the marks' age
    this.restingUntil.set(key, now + this.cooldownMs);
    if (this.restingUntil.size <= this.maxMarks) return;
    for (const [k, until] of this.restingUntil) if (until <= now) this.restingUntil.delete(k);
    for (const k of this.restingUntil.keys()) {
      if (this.restingUntil.size <= this.maxMarks) break;
      this.restingUntil.delete(k);
    }
  }

  /** Proxies currently cooling down for `scope` (without one: those set aside for everyone). */
  resting(scope = ''): string[] {
    const now = this.now();
    return this.urls.filter((u) => this.until(u, scope) > now);
  }

  /** Round-robin over `candidates` (a subset of the list, in its order), resting ones skipped while others are ready. */
  private nextOf(candidates: readonly string[], scope: string): string | undefined {
    if (candidates.length === 0) return undefined;
    const now = this.now();
    for (let i = 0; i < this.urls.length; i++) {
      const at = (this.cursor + i) % this.urls.length;
      const url = this.urls[at];
      if (!candidates.includes(url)) continue;
      if (this.until(url, scope) <= now) {
        this.cursor = (at + 1) % this.urls.length;
        return url;
      }
    }
    let best = candidates[0];
    for (const url of candidates) if (this.until(url, scope) < this.until(best, scope)) best = url;
    return best;
  }

  /** When a proxy is free again for `scope`: the later of its mark for everyone and its mark for the scope. */
  private until(url: string, scope: string): number {
    const all = this.restingUntil.get(markKey('', url)) ?? 0;
    return scope === '' ? all : Math.max(all, this.restingUntil.get(markKey(scope, url)) ?? 0);
  }
}

function markKey(scope: string, url: string): string {
  return `${scope}\n${url}`;
}
