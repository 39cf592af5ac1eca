import type { BrowserType } from 'playwright-core';
import type { AdBlocker } from './ad-blocker.service.js';

/** Resource types (Playwright's `request.resourceType()`) the pool can refuse to load. */
export const BLOCKABLE_RESOURCES = ['image', 'media', 'font', 'stylesheet', 'texttrack', 'manifest', 'other'] as const;
export const DEFAULT_BLOCKED_RESOURCES = ['image', 'media', 'font'] as const;

/** Throws (a TrawlError URL_NOT_ALLOWED) when the browser must not request `url`. */
export type RequestGuard = (url: string) => Promise<void>;

export interface BrowserPoolOptions {
  /** Chromium binary; see resolveChromiumPath. */
  executablePath: string;
  /** Browsers open at once (a retiring browser finishing its last pages is not counted). */
  maxBrowsers: number;
  /** Pages (tasks) at once per browser. */
  maxPagesPerBrowser: number;
  /** A browser takes no new task after this many and is closed once idle, then replaced on demand. */
  retireAfterPages: number;
  /** Tasks that may wait for a page; one more is refused with OVERLOADED. */
  queueLimit: number;
  /** Resource types refused in the browser (CDP Fetch limited to them behind the proxy, else the route handler). */
  blockResources: readonly string[];
  /**
   * Reuse a task's context (and page) for a later task when it provably left nothing behind: no request headers
   * given, one document origin, one page and frame, no cookies, empty local/session storage, IndexedDB and
   * CacheStorage. Otherwise (and always when false) the context is closed and the next task gets a fresh one.
   */
  reuseContexts: boolean;
  /**
   * Largest number of tasks one reused context serves (isolation between them is the clean check after every task,
   * not this cap). Replacing a context costs ~1 s of CPU (a new renderer gets going), ~17 ms a page at 50 tasks.
   */
  maxTasksPerContext: number;
  /**
   * A reused page's renderer collects its JavaScript garbage after every this many tasks (CDP
   * HeapProfiler.collectGarbage, ~25 ms). Without it a renderer grows by ~3 MB a page until V8 gets round to it.
   */
  gcEveryTasks: number;
  /**
   * Longest time the cleanup after a task may take (clean check, emptying the tab, closing popups, garbage
   * collection), ms. Every step is bounded by what is left of it; when it runs out the context is closed instead,
   * and the task's page slot is freed whatever the cleanup or the close does (a page cannot keep a slot).
   */
  cleanupTimeoutMs: number;
  /**
   * SSRF guard. Without `proxyServer`: applied to every request (route handler) and redirect hop. With it: the proxy
   * guards every request, and this is applied to the main frame's navigation and redirect hops for a clear error.
   */
  guard: RequestGuard;
  /**
   * Forward proxy every browser request goes through (loopback included), e.g. @trawl/safe-fetch's GuardProxy, which
   * refuses non-public addresses before sending and at connect time: the only guard that also holds for redirect
   * hops. When set, no request is routed through Node (see README).
   */
  proxyServer?: string;
  launchTimeoutMs: number;
  /**
   * Chromium's sandbox (default: on unless running as root). Off (`--no-sandbox`) only where the environment forbids it: as root, or
   * BROWSER_NO_SANDBOX=true; see `sandboxDecision`.
   */
  sandbox: boolean;
  /** A session keeps its identity, upstream proxy and contexts for this many tasks, then starts afresh. */
  sessionMaxTasks: number;
  /** ... and for this long, ms. */
  sessionMaxAgeMs: number;
  /**
   * Upstream proxies (PROXY_URLS) chained behind `proxyServer`: each session browses through one, through its own
   * guarded lane of the GuardProxy (so every target is still checked before it is forwarded).
   */
  upstreamProxies?: UpstreamProxies;
  /**
   * Decides which requests a task run with `blockAds` refuses (ads and trackers; ADR 0030). One per process: its
   * engine is built once (call its `ready()` at start-up). Without it `blockAds` blocks nothing.
   */
  adBlocker?: AdBlocker;
  /** Playwright's chromium, replaceable in tests. */
  launcher?: BrowserType;
  onEvent?: (event: BrowserPoolEvent) => void;
}

/** The upstream proxies the pool hands out to sessions: e.g. @trawl/safe-fetch's ProxyRotation plus GuardProxy lanes. */
export interface UpstreamProxies {
  /**
   * The next upstream proxy to use (ProxyRotation.next); with `country`, one that serves that country first, when
   * the list says which country each serves; with `scope`, skipping those resting for that scope.
   */
  next(country?: string, scope?: string): string | undefined;
  /**
   * Sets a proxy aside for its cool-down (ProxyRotation.markBlocked), when a session through it was blocked: for
   * `scope` only (the host the session served, RunOptions.proxyScope), so one upstream's block does not bench the
   * proxy for every caller (ADR 0027); without a scope, for all.
   */
  markBlocked(proxy: string, scope?: string): void;
  /** The local proxy URL a context uses to browse through `proxy`: the guard, chained to it (GuardProxy.laneFor). */
  laneFor(proxy: string): Promise<string>;
}

export type BrowserPoolEvent =
  | { type: 'launched'; browserId: number }
  | { type: 'retired'; browserId: number; pages: number }
  | { type: 'disconnected'; browserId: number; expected: boolean };

export interface BrowserPoolStats {
  /** Connected browsers (serving and retiring). */
  browsers: number;
  /** Pages running a task now. */
  busyPages: number;
  /** Clean contexts waiting for reuse. */
  idleContexts: number;
  /** Tasks waiting for a page. */
  queueLength: number;
  launched: number;
  retired: number;
  crashed: number;
  tasksCompleted: number;
  tasksFailed: number;
  contextsReused: number;
  /** Page slots in all (maxBrowsers × maxPagesPerBrowser). */
  slots: number;
  /**
   * Page slots held past the time their task and its cleanup were bounded by (deadline + cleanupTimeoutMs, and the
   * same again for the close): should stay 0; a pool whose every slot is stuck is not ready.
   */
  stuckPages: number;
  /** Cleanups whose bound ran out (the context was closed instead of kept). */
  cleanupsTimedOut: number;
  /** Tabs emptied between tasks (about:blank, history reset): after a task without a tenant, or on a change of tenant. */
  tabsReset: number;
}

export const DEFAULT_POOL_OPTIONS = {
  maxBrowsers: 1,
  maxPagesPerBrowser: 2,
  retireAfterPages: 500,
  queueLimit: 100,
  blockResources: DEFAULT_BLOCKED_RESOURCES,
  reuseContexts: true,
  maxTasksPerContext: 500,
  gcEveryTasks: 10,
  cleanupTimeoutMs: 2000,
  launchTimeoutMs: 30_000,
  sandbox: true,
  sessionMaxTasks: 100,
  sessionMaxAgeMs: 30 * 60_000,
} satisfies Partial<BrowserPoolOptions>;
