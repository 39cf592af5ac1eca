import type { BrowserIdentity } from '@trawl/browser-identity';
import type { Page } from 'playwright-core';

/** What a task gets: its own page, and the deadline it must finish by. */
export interface PageTaskContext {
  page: Page;
  /** Epoch milliseconds. */
  deadline: number;
  /** Milliseconds left before the deadline (at least 1). */
  remainingMs(): number;
  /** The session the task ran in (give it to `retireSession` when the upstream blocked it). */
  session: string;
  /** Who the browser is in this task. */
  identity: BrowserIdentity;
  /** Requests refused so far as ads or trackers (`blockAds`). */
  adsBlocked(): number;
}

export interface RunOptions {
  /** Epoch milliseconds by which the task (queueing and launch included) must be done. */
  deadline: number;
  /**
   * The task's caller gave it up (ADR 0043): while queued it leaves the queue, while running its context is closed
   * (as at the deadline), and the run rejects with the signal's reason; the page slot is free at once.
   */
  signal?: AbortSignal;
  /** Extra HTTP headers for every request of the task (a fresh context is always used then); see `headersFor`. */
  headers?: Record<string, string>;
  /**
   * Scopes `headers` to one page instead of every request (issue 19, Medium 5): a `Cookie` header becomes cookies of
   * the context for this URL (host-only, so the browser sends them only where that host's cookies go), and every
   * other header is added only to the main frame's navigations to this URL's origin; third parties, frames and
   * subresources never see them. Absent: `headers` go with every request (the render path's referer).
   */
  headersFor?: string;
  /**
   * Who the task browses as. Tasks of one named session share its identity, upstream proxy and context, cookies
   * included (name sessions per tenant); other sessions never share them. Without it, the pool's own session for
   * hl/gl, whose contexts are reused only when a task left them clean.
   */
  session?: string;
  /** Host language and country: the identity's locale, Accept-Language and time zone. */
  hl?: string;
  gl?: string;
  /**
   * Who the task is for: an opaque id set by the platform (the API key id), never by a caller. A reused tab is emptied
   * (about:blank, history reset) only before a task of another tenant, or when either task's tenant is unknown; tasks
   * of one tenant may follow each other on it (they can see their own previous page, never another tenant's).
   */
  tenant?: string;
  /**
   * Where the page is asked from (a scrape's `location`): the identity's languages (Accept-Language, locale), the
   * country's time zone and position (geolocation granted), and an upstream proxy of that country when the proxy
   * list says which serve it. Instead of hl/gl.
   */
  location?: { country?: string; languages?: string[] };
  /** A phone: the identity's mobile user agent and client hints, its screen, touch (a session of its own). */
  mobile?: boolean;
  /** The viewport of the task's page, CSS pixels (a fresh context that is not reused). */
  viewport?: { width: number; height: number };
  /**
   * The host a new session's upstream proxy serves (an upstream render's host): the proxy is drawn skipping those
   * resting for it, and a blocked `retireSession` rests it for that host only (ADR 0027). Absent: unscoped.
   */
  proxyScope?: string;
  /**
   * Refuse the requests of the task's page that the pool's `adBlocker` calls ads or trackers (ADR 0030). Per task: a
   * reused tab follows the flag of the task it serves.
   */
  blockAds?: boolean;
}
