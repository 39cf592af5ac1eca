import type { BrowserIdentity } from '@trawl/browser-identity';
import type { TrawlError } from '@trawl/contracts';
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import type { BrowserPoolOptions, BrowserPoolStats } from './browser-pool.options.js';

// The state BrowserPool's collaborators share (browsers, sessions, page slots, counters): internal to the library,
// not exported from its index.

/** The pool's options with their defaults applied. */
export type ResolvedPoolOptions = Required<
  Omit<BrowserPoolOptions, 'onEvent' | 'proxyServer' | 'upstreamProxies' | 'adBlocker'>
> &
  Pick<BrowserPoolOptions, 'onEvent' | 'proxyServer' | 'upstreamProxies' | 'adBlocker'>;

/** The counters of `stats()`; each collaborator counts its own. */
export type PoolCounters = Pick<
  BrowserPoolStats,
  | 'launched'
  | 'retired'
  | 'crashed'
  | 'tasksCompleted'
  | 'tasksFailed'
  | 'contextsReused'
  | 'tabsReset'
  | 'cleanupsTimedOut'
>;

/** A session: one identity and one upstream proxy, for up to sessionMaxTasks tasks and sessionMaxAgeMs. */
export interface Session {
  key: string;
  named: boolean;
  identity: BrowserIdentity;
  proxy?: string;
  lane?: string;
  /** The host its proxy was drawn for and is marked blocked for ('' = unscoped). */
  proxyScope: string;
  tasks: number;
  startedAt: number;
}

/** Per-task state a context's route handler and listeners write to. */
export interface TaskState {
  documentOrigins: Set<string>;
  /** Guard checks still running for the task's requests; the outcome waits for them. */
  checks: Promise<void>[];
  refused?: TrawlError;
  abort?: (e: TrawlError) => void;
  /** `blockAds` for this task (and an adBlocker to ask). */
  blockAds?: boolean;
  /** Requests refused as ads or trackers. */
  adsBlocked: number;
  /** The URL of the tab's last main-frame navigation request seen: the page a request is made for. */
  topUrl?: string;
}

/** A page slot: one BrowserContext and its tab, busy with a task or idle on its browser for the next. */
export interface Slot {
  context: BrowserContext;
  page: Page;
  cdp?: CDPSession;
  /** The context's id in the browser (CDP browserContextId), once asked for. */
  contextId?: string;
  /** The tab's target id (its main frame's CDP frame id), behind the proxy. */
  targetId?: string;
  /** Behind the proxy: every request pauses in the slot's CDP Fetch handler (a task with blockAds), not only blocked types. */
  interceptsAll?: boolean;
  uses: number;
  withHeaders: boolean;
  crashed: boolean;
  task: TaskState;
  session: Session;
  /**
   * The tenant of the task whose page the tab still shows, when it was kept for that tenant's next task; undefined
   * when the tab is empty (a new tab, or reset after its last task).
   */
  shownFor?: string;
}

/** One launched (or launching) Chromium and its idle page slots. */
export interface PooledBrowser {
  id: number;
  ready: Promise<Browser>;
  browser?: Browser;
  active: number;
  served: number;
  retired: boolean;
  dead: boolean;
  closing: boolean;
  idle: Slot[];
}

/** A fresh task's state. */
export const newTaskState = (): TaskState => ({ documentOrigins: new Set(), checks: [], adsBlocked: 0 });
