import { TrawlError } from '@trawl/contracts';
import { chromium } from 'playwright-core';
import { BrowserLauncher } from './browser-launcher.service.js';
import { DEFAULT_POOL_OPTIONS, type BrowserPoolOptions, type BrowserPoolStats } from './browser-pool.options.js';
import type { PoolCounters, PooledBrowser, ResolvedPoolOptions, Slot } from './browser-pool-state.types.js';
import type { PageTaskContext, RunOptions } from './browser-pool.types.js';
import { BrowserSessionStore } from './browser-session.store.js';
import { sandboxDecision } from './chromium-path.resolver.js';
import { abandonReason, raceDeadline } from './deadline-bound.util.js';
import { PageRequestGuard } from './page-request.guard.js';
import { PageSlotFactory } from './page-slot.factory.js';
import { PageSlots } from './page-slots.service.js';
import { PermitQueue } from './permit.queue.js';
import { TabReset } from './tab-reset.service.js';

/**
 * A bounded pool of Chromium browsers (Playwright). `run(task, { deadline })` waits for a free page (bounded queue,
 * OVERLOADED when full), gives the task a page in its own BrowserContext and enforces the deadline end to end
 * (UPSTREAM_TIMEOUT; the context is closed, which stops everything the task was doing). Every request the browser
 * makes passes the SSRF guard; blocked resource types are aborted. Browsers are retired after N tasks and replaced
 * when they crash. See README for the context reuse rule.
 *
 * The facade over its collaborators, which it wires and which share the pool's counters: BrowserLauncher (browsers),
 * BrowserSessionStore (identities and upstream proxies), PageSlots with PageSlotFactory (page slots and tenants),
 * PageRequestGuard (request routing and blocking) and TabReset (clean checks, emptying a tab between tenants). It
 * keeps the permits, the deadline of each step of a task and the counts of tasks.
 */
export class BrowserPool {
  private readonly opts: ResolvedPoolOptions;
  private readonly permits: PermitQueue;
  private readonly launcher: BrowserLauncher;
  private readonly sessions: BrowserSessionStore;
  private readonly requests: PageRequestGuard;
  private readonly slots: PageSlots;
  private closed = false;
  private readonly counters: PoolCounters = {
    launched: 0,
    retired: 0,
    crashed: 0,
    tasksCompleted: 0,
    tasksFailed: 0,
    contextsReused: 0,
    tabsReset: 0,
    cleanupsTimedOut: 0,
  };
  /** Each held page slot: the epoch ms by which it must be free (its deadline plus the cleanup's and the close's bound). */
  private readonly holds = new Set<{ until: number }>();

  constructor(options: Partial<BrowserPoolOptions> & Pick<BrowserPoolOptions, 'executablePath' | 'guard'>) {
    this.opts = {
      ...DEFAULT_POOL_OPTIONS,
      launcher: chromium,
      ...options,
      sandbox: options.sandbox ?? sandboxDecision(false).sandbox,
    };
    this.permits = new PermitQueue(this.opts.maxBrowsers * this.opts.maxPagesPerBrowser, this.opts.queueLimit);
    this.launcher = new BrowserLauncher(this.opts, this.counters);
    this.sessions = new BrowserSessionStore(
      this.opts,
      () => this.launcher.identities(),
      (ended) => this.slots.dropIdle((slot) => slot.session === ended),
    );
    this.requests = new PageRequestGuard(this.opts);
    const tabs = new TabReset(this.opts, this.counters);
    this.slots = new PageSlots(this.opts, this.counters, this.launcher, new PageSlotFactory(this.requests), tabs);
  }

  stats(): BrowserPoolStats {
    return {
      browsers: this.launcher.all.filter((b) => !b.dead).length,
      busyPages: this.permits.busy,
      slots: this.opts.maxBrowsers * this.opts.maxPagesPerBrowser,
      stuckPages: [...this.holds].filter((h) => h.until < Date.now()).length,
      idleContexts: this.launcher.all.reduce((n, b) => n + b.idle.length, 0),
      queueLength: this.permits.queued,
      ...this.counters,
    };
  }

  /**
   * Start-up: launches the first browser and, with context reuse, opens its page slots' contexts (fresh, clean, idle),
   * so the first scrapes pay for neither. A new context's renderer spends ~0.6 s of CPU getting going in its first
   * seconds, whatever it loads (BENCHMARKS.md, Scrape).
   */
  async warmUp(): Promise<void> {
    if (this.launcher.all.length > 0) return;
    const pb = this.launcher.launch();
    await pb.ready;
    if (!this.opts.reuseContexts) return;
    await this.slots.warm(pb, await this.sessions.sessionFor({}));
  }

  async run<T>(task: (ctx: PageTaskContext) => Promise<T>, options: RunOptions): Promise<T> {
    if (this.closed) throw new TrawlError('SERVICE_UNAVAILABLE', 'browser pool is shutting down');
    const { deadline } = options;
    const headers = options.headers && Object.keys(options.headers).length > 0 ? options.headers : undefined;
    const fresh = headers !== undefined || options.viewport !== undefined;
    await this.permits.acquire(deadline, options.signal);
    const hold = { until: deadline + 2 * this.opts.cleanupTimeoutMs };
    this.holds.add(hold);
    const pb = this.launcher.pick();
    let slot: Slot | undefined;
    let ok = false;
    try {
      await raceDeadline(pb.ready, deadline, 'the deadline passed while launching a browser');
      const session = await raceDeadline(
        this.sessions.sessionFor(options),
        deadline,
        'the deadline passed while opening a session',
      );
      session.tasks++;
      const scoped = headers && options.headersFor ? options.headersFor : undefined;
      const taking = this.slots.take(pb, session, options.tenant, {
        headers,
        viewport: fresh ? options.viewport : undefined,
        fresh,
        scopedTo: scoped,
      });
      slot = await raceDeadline(taking, deadline, 'the deadline passed while opening a browser page').catch(
        (e: unknown) => {
          taking.then(
            (s) => s.context.close().catch(() => undefined),
            () => undefined,
          );
          throw e;
        },
      );
      await raceDeadline(
        this.requests.blockAdsFor(slot, options.blockAds === true),
        deadline,
        'the deadline passed while loading the ad filters',
      );
      if (options.signal?.aborted) throw abandonReason(options.signal);
      const result = await this.slots.runTask(pb, slot, task, deadline, options.signal);
      ok = true;
      return result;
    } catch (e) {
      throw this.explain(e, pb);
    } finally {
      if (ok) this.counters.tasksCompleted++;
      else this.counters.tasksFailed++;
      void this.release(pb, slot, ok, options.tenant).finally(() => this.holds.delete(hold));
    }
  }

  /**
   * Ends a session: its contexts are closed and its next task starts a new one (new identity, next proxy). With
   * `blocked`, its upstream proxy is set aside for its cool-down too, for the session's `proxyScope` only. For a
   * caller whose upstream answered the session with a block page or a challenge.
   */
  retireSession(session: string, options: { blocked?: boolean } = {}): void {
    this.sessions.retire(session, options);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.permits.close(new TrawlError('SERVICE_UNAVAILABLE', 'browser pool is shutting down'));
    await this.launcher.close();
  }

  private explain(e: unknown, pb: PooledBrowser): unknown {
    if (e instanceof TrawlError) return e;
    if (pb.dead) return new TrawlError('SERVICE_UNAVAILABLE', 'the browser crashed during the task', { cause: e });
    return e;
  }

  /**
   * After a task: keep the context for reuse when it is provably clean, else close it. Every step is bounded by the
   * cleanup's budget (cleanupTimeoutMs): a page that makes a step hang (a busy loop, a renderer that never answers)
   * only gets its context closed. The permit is freed whatever the cleanup and the close do, within that budget and
   * one more for the close (TabReset decides and bounds both).
   */
  private async release(pb: PooledBrowser, slot: Slot | undefined, ok: boolean, tenant?: string): Promise<void> {
    try {
      if (!slot) return;
      await this.slots.release(pb, slot, ok && this.sessions.isCurrent(slot.session), tenant);
    } finally {
      this.launcher.release(pb);
      this.permits.release();
    }
  }
}
