import type { Page, Request } from 'playwright-core';

export interface SettleOptions {
  /** The page counts as settled after this long with no request in flight and no DOM mutation, ms. */
  quietMs: number;
  /** Longest wait after `load`, ms (a page that never goes quiet is taken as it is then). */
  maxMs: number;
  /** Epoch ms the wait must end by in any case (the task's deadline less what the snapshot needs). */
  deadline?: number;
}

export const DEFAULT_SETTLE = { quietMs: 100, maxMs: 2500 } as const satisfies SettleOptions;

/** What `settlePage` saw: why it stopped, and after how long (for metrics and the ADR's measurements). */
export interface SettleOutcome {
  reason: 'quiet' | 'max' | 'deadline';
  waitedMs: number;
  /** Rounds of "network idle, then DOM quiet" it took (1: the page was settled at once). */
  rounds: number;
}

/** Requests that never end by design, so they do not hold the page unsettled. */
const ENDLESS = new Set(['eventsource', 'websocket', 'media']);

/** In-flight requests of a page, from the events Playwright delivers anyway (nothing is routed through Node). */
class NetworkTracker {
  private readonly inflight = new Map<Request, number>();
  lastActivity = 0;
  private idleWaiters: (() => void)[] = [];

  constructor(page: Page) {
    page.on('request', (r) => {
      if (ENDLESS.has(r.resourceType())) return;
      this.inflight.set(r, Date.now());
      this.lastActivity = Date.now();
    });
    const done = (r: Request) => {
      if (!this.inflight.delete(r)) return;
      this.lastActivity = Date.now();
      if (this.inflight.size === 0) for (const w of this.idleWaiters.splice(0)) w();
    };
    page.on('requestfinished', done);
    page.on('requestfailed', done);
  }

  get size(): number {
    return this.inflight.size;
  }

  /** Forgets requests started before `since` (a previous task's, cancelled without an event). */
  forgetBefore(since: number): void {
    for (const [r, at] of this.inflight) if (at < since) this.inflight.delete(r);
  }

  idle(timeoutMs: number): Promise<boolean> {
    if (this.inflight.size === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.idleWaiters = this.idleWaiters.filter((w) => w !== waiter);
        resolve(false);
      }, timeoutMs);
      const waiter = () => {
        clearTimeout(timer);
        resolve(true);
      };
      this.idleWaiters.push(waiter);
    });
  }
}

const trackers = new WeakMap<Page, NetworkTracker>();

/**
 * Starts counting a page's in-flight requests (the pool does it for every page it opens, before any navigation, so
 * requests a page starts while loading are seen). Idempotent.
 */
export function trackNetwork(page: Page): void {
  if (!trackers.has(page)) trackers.set(page, new NetworkTracker(page));
}

/** Forgets in-flight requests started before `since` (called by the pool when a page starts a new task). */
export function resetNetwork(page: Page, since = Date.now()): void {
  trackers.get(page)?.forgetBefore(since);
}

/**
 * Resolves once the DOM has had no mutation for `quietMs` (or after `capMs`), in the page: one round trip. Answers
 * `static` at once for a document without scripts or frames (nothing can change it after load), `quiet` when quiet,
 * `busy` at the cap. Runs in the page's world; a page without a document counts as static.
 */
function domQuiet([quietMs, capMs]: [number, number]): Promise<'static' | 'quiet' | 'busy'> {
  return new Promise((resolve) => {
    const root = document.documentElement;
    if (!root || (document.scripts.length === 0 && document.querySelector('iframe, frame, object, embed') === null)) {
      resolve('static');
      return;
    }
    let quietTimer: ReturnType<typeof setTimeout>;
    const finish = (quiet: boolean) => {
      observer.disconnect();
      clearTimeout(quietTimer);
      clearTimeout(capTimer);
      resolve(quiet ? 'quiet' : 'busy');
    };
    const observer = new MutationObserver(() => {
      clearTimeout(quietTimer);
      quietTimer = setTimeout(() => finish(true), quietMs);
    });
    observer.observe(root, { subtree: true, childList: true, characterData: true, attributes: true });
    quietTimer = setTimeout(() => finish(true), quietMs);
    const capTimer = setTimeout(() => finish(false), capMs);
  });
}

/**
 * Waits, after `load`, until the page is settled: no request in flight, then no DOM mutation and no request
 * activity for `quietMs`; at most `maxMs`, and never past `deadline`. A page without scripts or frames is settled as
 * soon as nothing is in flight (one round trip); one with scripts costs at least one quiet window. Content
 * written by script after load, or filled from an API the page calls after load, is in the DOM when it returns.
 * See docs/decisions/0006.
 */
export async function settlePage(page: Page, options: SettleOptions = DEFAULT_SETTLE): Promise<SettleOutcome> {
  if (options.quietMs <= 0 || options.maxMs <= 0) return { reason: 'quiet', waitedMs: 0, rounds: 0 }; // turned off
  trackNetwork(page);
  const tracker = trackers.get(page) as NetworkTracker;
  const start = Date.now();
  const capAt = Math.min(start + options.maxMs, options.deadline ?? Infinity);
  const capReason = start + options.maxMs <= (options.deadline ?? Infinity) ? 'max' : 'deadline';
  let rounds = 0;
  while (Date.now() < capAt) {
    rounds++;
    if (!(await tracker.idle(capAt - Date.now()))) break;
    const left = capAt - Date.now();
    if (left <= 0) break;
    const dom = await page
      .evaluate(domQuiet, [Math.min(options.quietMs, left), left] as [number, number])
      .catch(() => 'quiet' as const);
    // No scripts, no frames, nothing in flight: the document is final as loaded (a static page waits for nothing).
    if (dom === 'static') return { reason: 'quiet', waitedMs: Date.now() - start, rounds };
    if (dom === 'busy') break;
    const sinceNetwork = Date.now() - tracker.lastActivity;
    if (tracker.size === 0 && sinceNetwork >= options.quietMs)
      return { reason: 'quiet', waitedMs: Date.now() - start, rounds };
    if (tracker.size === 0) {
      // a request ended during the DOM window: give its handler the rest of a quiet window, then look again
      await new Promise((r) =>
        setTimeout(r, Math.min(options.quietMs - sinceNetwork, Math.max(0, capAt - Date.now()))),
      );
    }
  }
  return { reason: capReason, waitedMs: Date.now() - start, rounds };
}
