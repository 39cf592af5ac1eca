/** A clock in epoch milliseconds; tests pass a stub. */
export type Clock = () => number;

export interface ProxyRotationOptions {
  /** How long a proxy that got blocked is set aside, ms. */
  cooldownMs?: number;
  now?: Clock;
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

  constructor(
    private readonly urls: readonly string[],
    options: ProxyRotationOptions = {},
  ) {
    this.cooldownMs = options.cooldownMs ?? 5 * 60_000;
    this.now = options.now ?? Date.now;
  }

  get size(): number {
    return this.urls.length;
  }

  /** Every proxy, cooling or not (e.g. for a per-proxy gauge). */
  all(): readonly string[] {
    return this.urls;
  }

  /** The next proxy to use, or undefined when there are none. */
  next(): string | undefined {
    if (this.urls.length === 0) return undefined;
    const now = this.now();
    for (let i = 0; i < this.urls.length; i++) {
      const url = this.urls[(this.cursor + i) % this.urls.length];
      const until = this.restingUntil.get(url);
      if (until === undefined || until <= now) {
        this.restingUntil.delete(url);
        this.cursor = (this.cursor + i + 1) % this.urls.length;
        return url;
      }
    }
    let best = this.urls[0];
    for (const url of this.urls) if ((this.restingUntil.get(url) ?? 0) < (this.restingUntil.get(best) ?? 0)) best = url;
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
