import type { CDPSession } from 'playwright-core';
import type { PoolCounters, ResolvedPoolOptions, Slot } from './browser-pool-state.types.js';
import { cleanupBound, CleanupTimeoutError, type Bound } from './deadline-bound.util.js';

/**
 * Whether a used tab may serve another task, and emptying it between tenants (ADR 0017). After a task (`keepAfter`)
 * the clean check runs (one document origin, one page and frame, no cookies, no storage), then the tab is emptied
 * (no tenant) or kept showing its page for its tenant's next task; before a reused tab serves a task (`readyFor`) the
 * check runs again for another tenant and the tab is emptied. Every step is bounded by the cleanup's budget
 * (cleanupTimeoutMs); a step that runs out makes the tab unfit (its context is closed instead).
 */
export class TabReset {
  constructor(
    private readonly opts: Pick<
      ResolvedPoolOptions,
      'reuseContexts' | 'maxTasksPerContext' | 'gcEveryTasks' | 'cleanupTimeoutMs'
    >,
    private readonly counters: Pick<PoolCounters, 'tabsReset' | 'cleanupsTimedOut'>,
  ) {}

  /**
   * After a task that ended well in a slot its session and browser still serve: true when the slot may be kept for
   * reuse (provably clean; emptied now without a tenant, else showing its page for the tenant's next task, popups
   * closed), false when its context must be closed. A task with a tenant leaves its page in the tab for that tenant's
   * next task; `readyFor` empties the tab before anyone else's. Without a tenant the tab is emptied now, as before
   * tenants were known.
   */
  async keepAfter(slot: Slot, tenant: string | undefined): Promise<boolean> {
    const within = cleanupBound(Date.now() + this.opts.cleanupTimeoutMs);
    try {
      let kept = await this.isClean(slot, within);
      if (kept && tenant === undefined) kept = await this.forgetTask(slot, within);
      else if (kept) {
        kept = await this.closePopups(slot, within);
        slot.shownFor = tenant;
      }
      if (kept && slot.uses % this.opts.gcEveryTasks === 0) {
        const cdp = await within(this.cdpOf(slot));
        await within(cdp.send('HeapProfiler.collectGarbage'));
      }
      return kept;
    } catch (e) {
      if (e instanceof CleanupTimeoutError) this.counters.cleanupsTimedOut++;
      return false;
    }
  }

  /**
   * Whether an idle context may serve a task of `tenant`. A tab kept showing a tenant's last page serves that tenant's
   * next task as it is (no navigation: ~35 ms of CPU a page, BENCHMARKS.md, Scrape, run 4), once popups it opened
   * while idle are closed. Anyone else's task, or a task without a tenant, gets it emptied first (forgetTask) after the
   * clean check has run again, on the kept page: that page went on running after its task's check, and what it stored
   * since must not reach another tenant. Bounded as the cleanup after a task is.
   * False: the context is not fit for the task (the caller closes it and opens a new one).
   */
  async readyFor(slot: Slot, tenant: string | undefined): Promise<boolean> {
    if (slot.crashed || slot.page.isClosed()) return false; // the tab died while idle
    const within = cleanupBound(Date.now() + this.opts.cleanupTimeoutMs);
    try {
      if (slot.shownFor === undefined) return await this.alone(slot, within); // a new tab, or emptied after its task
      if (tenant !== undefined && slot.shownFor === tenant) return await this.closePopups(slot, within);
      if (slot.task.refused) return false;
      // The kept task's state still collects the tab's requests: a document of another origin loaded since, a frame
      // added or anything stored since its check, and the context is not handed to anyone else.
      if (!(await this.isClean(slot, within, true))) return false;
      return await this.forgetTask(slot, within);
    } catch (e) {
      if (e instanceof CleanupTimeoutError) this.counters.cleanupsTimedOut++;
      return false;
    }
  }

  /** Closes a slot's context, waiting for it at most cleanupTimeoutMs (the browser goes on closing it). */
  async close(slot: Slot): Promise<void> {
    await cleanupBound(Date.now() + this.opts.cleanupTimeoutMs)(slot.context.close()).catch(() => undefined);
  }

  private async cdpOf(slot: Slot): Promise<CDPSession> {
    slot.cdp ??= await slot.context.newCDPSession(slot.page);
    return slot.cdp;
  }

  /**
   * Before a context serves the next task: the task's document replaced by about:blank (its scripts, timers and
   * connections stop, so it can open no more popups), then every other page (popups) closed, the tab's history
   * cleared (`history.back()` or `history.length` tells the next task nothing of this one), then verified: one page,
   * showing about:blank, one frame. False: the tab is not provably empty (the caller closes the context).
   */
  private async forgetTask(slot: Slot, within: Bound): Promise<boolean> {
    await within(slot.page.goto('about:blank'));
    if (!(await this.closePopups(slot, within))) return false;
    const cdp = await within(this.cdpOf(slot));
    await within(cdp.send('Page.resetNavigationHistory'));
    if (slot.page.url() !== 'about:blank' || !(await this.alone(slot, within))) return false;
    slot.shownFor = undefined;
    this.counters.tabsReset++;
    return true;
  }

  /** Closes every page of the context but the tab, then checks that none is left (a popup may open another). */
  private async closePopups(slot: Slot, within: Bound): Promise<boolean> {
    await within(
      Promise.all(
        slot.context
          .pages()
          .filter((p) => p !== slot.page)
          .map((p) => p.close()),
      ),
    );
    return this.alone(slot, within);
  }

  /**
   * The tab is the context's only page and shows one frame, as the browser itself counts pages (CDP Target.getTargets):
   * a popup opened a moment ago (by a popup as it closed, say) exists there before Playwright lists it.
   */
  private async alone(slot: Slot, within: Bound): Promise<boolean> {
    const pages = slot.context.pages();
    if (pages.length !== 1 || pages[0] !== slot.page || slot.page.isClosed() || slot.page.frames().length !== 1)
      return false;
    const cdp = await within(this.cdpOf(slot));
    slot.contextId ??= (await within(cdp.send('Target.getTargetInfo'))).targetInfo.browserContextId;
    const { targetInfos } = await within(cdp.send('Target.getTargets'));
    return targetInfos.filter((t) => t.type === 'page' && t.browserContextId === slot.contextId).length === 1;
  }

  /**
   * A context may serve the session's next task: a named session keeps its cookies and storage (they are the
   * session), the pool's own none; both must be down to their one tab and frame, with no refused request.
   * `again`: the re-check of an idle kept tab (the per-context limits were checked when the task ended).
   */
  private async isClean(slot: Slot, within: Bound, again = false): Promise<boolean> {
    if (!this.opts.reuseContexts || slot.withHeaders || slot.crashed || slot.task.refused) return false;
    if (!again && slot.uses >= this.opts.maxTasksPerContext) return false;
    if (slot.page.isClosed()) return false;
    if (slot.session.named) return true; // popups and frames: closed and checked before the tab is kept or emptied
    if (slot.task.documentOrigins.size > 1) return false;
    if (slot.context.pages().length !== 1 || slot.page.frames().length !== 1) return false;
    return this.holdsNothing(slot, within);
  }

  /**
   * No cookies in the context and no storage in the page's origin (local, session, IndexedDB, CacheStorage), read
   * from outside the page: the browser's cookie store, and CDP's DOMStorage, IndexedDB and CacheStorage domains,
   * which no script of the page can override (a page that redefines `indexedDB.databases` or `Storage.length` only
   * changes what it sees itself). Each read is bounded (`within`): a renderer busy in a loop answers none of them.
   * The one document origin the task loaded must be the tab's own now (else its storage cannot be read: not clean).
   */
  private async holdsNothing(slot: Slot, within: Bound): Promise<boolean> {
    if (slot.page.isClosed()) return false;
    const cookies = await within(slot.context.cookies());
    if (cookies.length > 0) return false;
    const origin = httpOrigin(slot.page.url());
    const loaded = [...slot.task.documentOrigins];
    if (!origin) return loaded.length === 0; // about:blank and the like, with no document of the web loaded
    if (loaded.some((o) => o !== origin)) return false;
    const cdp = await within(this.cdpOf(slot));
    const storageKey = `${origin}/`;
    const [local, session, databases, caches] = await within(
      Promise.all([
        cdp.send('DOMStorage.getDOMStorageItems', { storageId: { storageKey, isLocalStorage: true } }),
        cdp.send('DOMStorage.getDOMStorageItems', { storageId: { storageKey, isLocalStorage: false } }),
        cdp.send('IndexedDB.requestDatabaseNames', { storageKey }),
        cdp.send('CacheStorage.requestCacheNames', { storageKey }),
      ]),
    );
    return (
      local.entries.length === 0 &&
      session.entries.length === 0 &&
      databases.databaseNames.length === 0 &&
      caches.caches.length === 0
    );
  }
}

/** `scheme://host[:port]` of an http(s) URL, else undefined (about:blank, data:, a bad URL). */
function httpOrigin(url: string): string | undefined {
  if (!url.startsWith('http:') && !url.startsWith('https:')) return undefined;
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}
