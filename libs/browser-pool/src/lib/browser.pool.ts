import type { BrowserIdentity } from '@trawl/browser-identity';
import { TrawlError } from '@trawl/contracts';
import { chromium, type CDPSession, type Page } from 'playwright-core';
import { sandboxDecision } from './chromium-path.resolver.js';
import { DEFAULT_POOL_OPTIONS, type BrowserPoolOptions, type BrowserPoolStats } from './browser-pool.options.js';
import type { PooledBrowser, ResolvedPoolOptions, Session, Slot } from './browser-pool-state.types.js';
import { newTaskState } from './browser-pool-state.types.js';
import type { PageTaskContext, RunOptions } from './browser-pool.types.js';
import { raceDeadline } from './deadline-bound.util.js';
import { PageRequestGuard } from './page-request.guard.js';
import { BrowserLauncher, PROXY_LOOPBACK_TOO } from './browser-launcher.service.js';
import { BrowserSessionStore } from './browser-session.store.js';
import { PermitQueue } from './permit.queue.js';
import { TabReset } from './tab-reset.service.js';
import { resetNetwork, trackNetwork } from './settle-page.util.js';

/**
 * A bounded pool of Chromium browsers (Playwright). `run(task, { deadline })` waits for a free page (bounded queue,
 * OVERLOADED when full), gives the task a page in its own BrowserContext and enforces the deadline end to end
 * (UPSTREAM_TIMEOUT; the context is closed, which stops everything the task was doing). Every request the browser
 * makes passes the SSRF guard; blocked resource types are aborted. Browsers are retired after N tasks and replaced
 * when they crash. See README for the context reuse rule.
 */
export class BrowserPool {
  private readonly opts: ResolvedPoolOptions;
  private readonly permits: PermitQueue;
  private readonly launcher: BrowserLauncher;
  private readonly sessions: BrowserSessionStore;
  private readonly requests: PageRequestGuard;
  private readonly tabs: TabReset;
  private closed = false;
  private readonly counters = {
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
      (ended) => this.dropIdle((slot) => slot.session === ended),
    );
    this.requests = new PageRequestGuard(this.opts);
    this.tabs = new TabReset(this.opts, this.counters);
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
    const session = await this.sessions.sessionFor({});
    const slots = await Promise.all(
      Array.from({ length: this.opts.maxPagesPerBrowser }, () => this.takeSlot(pb, undefined, session)),
    );
    if (pb.dead || pb.closing) await Promise.all(slots.map((s) => s.context.close().catch(() => undefined)));
    else {
      for (const slot of slots) slot.uses = 0; // not reused yet: its first task counts as use 1
      pb.idle.push(...slots);
    }
  }

  async run<T>(task: (ctx: PageTaskContext) => Promise<T>, options: RunOptions): Promise<T> {
    if (this.closed) throw new TrawlError('SERVICE_UNAVAILABLE', 'browser pool is shutting down');
    const { deadline } = options;
    const headers = options.headers && Object.keys(options.headers).length > 0 ? options.headers : undefined;
    const fresh = headers !== undefined || options.viewport !== undefined;
    await this.permits.acquire(deadline);
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
      const taking = this.takeSlot(
        pb,
        headers,
        session,
        options.tenant,
        fresh ? options.viewport : undefined,
        fresh,
        scoped !== undefined,
      ).then(async (s) => {
        if (scoped && headers) await scopeHeaders(s.page, headers, scoped);
        return s;
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
      const result = await this.runInSlot(pb, slot, task, deadline);
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

  private async runInSlot<T>(
    pb: PooledBrowser,
    slot: Slot,
    task: (ctx: PageTaskContext) => Promise<T>,
    deadline: number,
  ): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const aborted = new Promise<never>((_, reject) => {
      slot.task.abort = (e) => {
        slot.task.abort = undefined;
        reject(e);
        void slot.context.close().catch(() => undefined); // stops whatever the task is still doing
      };
      timer = setTimeout(
        () => slot.task.abort?.(new TrawlError('UPSTREAM_TIMEOUT', 'the page did not finish before the deadline')),
        Math.max(1, deadline - Date.now()),
      );
    });
    resetNetwork(slot.page);
    const running = task({
      page: slot.page,
      deadline,
      remainingMs: () => Math.max(1, deadline - Date.now()),
      session: slot.session.key,
      identity: slot.session.identity,
      adsBlocked: () => slot.task.adsBlocked,
    });
    running.catch(() => undefined);
    try {
      const result = await Promise.race([running, aborted]);
      await Promise.race([Promise.all(slot.task.checks), aborted]);
      if (slot.task.refused) throw slot.task.refused;
      if (pb.dead) throw new TrawlError('SERVICE_UNAVAILABLE', 'the browser crashed during the task');
      return result;
    } catch (e) {
      throw slot.task.refused ?? e;
    } finally {
      clearTimeout(timer);
      slot.task.abort = undefined;
    }
  }

  private explain(e: unknown, pb: PooledBrowser): unknown {
    if (e instanceof TrawlError) return e;
    if (pb.dead) return new TrawlError('SERVICE_UNAVAILABLE', 'the browser crashed during the task', { cause: e });
    return e;
  }

  private async takeSlot(
    pb: PooledBrowser,
    headers: Record<string, string> | undefined,
    session: Session,
    tenant?: string,
    viewport?: { width: number; height: number },
    fresh = headers !== undefined,
    scoped = false,
  ): Promise<Slot> {
    const browser = await pb.ready;
    if (!fresh && this.opts.reuseContexts) {
      const at = this.idleSlotFor(pb, session, tenant);
      const reused = at >= 0 ? pb.idle.splice(at, 1)[0] : undefined;
      if (reused && (await this.tabs.readyFor(reused, tenant))) {
        if (reused.uses > 0) this.counters.contextsReused++; // 0: opened ahead by warmUp, first task
        reused.uses++;
        reused.task = newTaskState();
        return reused;
      }
      if (reused) void reused.context.close().catch(() => undefined);
    }
    // Other sessions' idle contexts beyond the page slots make room (oldest first).
    while (pb.idle.length > 0 && pb.active + pb.idle.length > this.opts.maxPagesPerBrowser) {
      void pb.idle
        .shift()
        ?.context.close()
        .catch(() => undefined);
    }
    const identity = session.identity;
    const context = await browser.newContext({
      extraHTTPHeaders: scoped ? undefined : headers, // scoped: scopeHeaders, once the page is open
      serviceWorkers: 'block',
      acceptDownloads: false,
      locale: identity.locale,
      timezoneId: identity.timezoneId,
      ...(identity.device ?? {}),
      ...(viewport ? { viewport } : {}),
      ...(identity.geolocation ? { geolocation: identity.geolocation, permissions: ['geolocation'] } : {}),
      ...(session.lane ? { proxy: { server: session.lane, bypass: PROXY_LOOPBACK_TOO } } : {}),
    });
    const slot: Slot = {
      context,
      page: undefined as unknown as Page,
      uses: 1,
      withHeaders: fresh,
      crashed: false,
      task: newTaskState(),
      session,
    };
    await this.requests.watchContext(slot);
    slot.page = await context.newPage();
    trackNetwork(slot.page);
    slot.cdp = (await this.requests.interceptInBrowser(slot)) ?? (await context.newCDPSession(slot.page));
    await applyIdentity(slot.cdp, identity, headers);
    slot.page.on('crash', () => {
      slot.crashed = true;
      slot.task.abort?.(new TrawlError('UPSTREAM_ERROR', 'the page crashed the browser tab'));
    });
    return slot;
  }

  /**
   * The idle tab of `session` that serves a task of `tenant` at the least cost (-1: none): one that still shows this
   * tenant's last page (no reset), else an empty one, else another tenant's (reset first). Most recent first.
   */
  private idleSlotFor(pb: PooledBrowser, session: Session, tenant: string | undefined): number {
    const mine = (s: Slot) => s.session === session;
    const kept = tenant === undefined ? -1 : pb.idle.findLastIndex((s) => mine(s) && s.shownFor === tenant);
    if (kept >= 0) return kept;
    const empty = pb.idle.findLastIndex((s) => mine(s) && s.shownFor === undefined);
    return empty >= 0 ? empty : pb.idle.findLastIndex(mine);
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
      const reusable = ok && !pb.dead && !pb.retired && this.sessions.isCurrent(slot.session);
      if (reusable && (await this.tabs.keepAfter(slot, tenant))) pb.idle.push(slot);
      else await this.tabs.close(slot);
    } finally {
      this.launcher.release(pb);
      this.permits.release();
    }
  }

  private dropIdle(matches: (slot: Slot) => boolean): void {
    for (const pb of this.launcher.all) {
      const drop = pb.idle.filter(matches);
      pb.idle = pb.idle.filter((slot) => !matches(slot));
      for (const slot of drop) void slot.context.close().catch(() => undefined);
    }
  }
}

/**
 * `headers` for one page only: the `Cookie` header's pairs as host-only cookies of `url` (the browser's cookie rules
 * decide where they go), every other header on the main frame's navigations to `url`'s origin (a page route for that
 * origin only, so no other request passes through Node). `User-Agent` and `Accept-Language` are the identity's
 * (applyIdentity) and go with every request, as a browser's do.
 */
async function scopeHeaders(page: Page, headers: Record<string, string>, url: string): Promise<void> {
  const origin = new URL(url).origin;
  const cookies: { name: string; value: string; url: string }[] = [];
  const rest: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (lower === 'cookie') {
      for (const pair of value.split(';')) {
        const at = pair.indexOf('=');
        if (at > 0) cookies.push({ name: pair.slice(0, at).trim(), value: pair.slice(at + 1).trim(), url: origin });
      }
    } else if (lower !== 'user-agent' && lower !== 'accept-language') rest[lower] = value;
  }
  if (cookies.length > 0) await page.context().addCookies(cookies);
  if (Object.keys(rest).length === 0) return;
  await page.route(`${origin}/**`, async (route, request) => {
    const main = request.isNavigationRequest() && request.frame() === page.mainFrame();
    await route.fallback(main ? { headers: { ...request.headers(), ...rest } } : undefined).catch(() => undefined);
  });
}

/**
 * The identity on a page, over CDP: user agent, Accept-Language list, `navigator.platform` and the client hints
 * (`navigator.userAgentData`, `Sec-CH-UA*`) that Playwright's own `userAgent` option would leave without brands.
 */
async function applyIdentity(
  cdp: CDPSession,
  identity: BrowserIdentity,
  headers?: Record<string, string>,
): Promise<void> {
  // A caller's own User-Agent or Accept-Language header wins (the emulation would replace extraHTTPHeaders' value).
  const given = (name: string) => Object.entries(headers ?? {}).find(([k]) => k.toLowerCase() === name)?.[1];
  await cdp.send('Emulation.setUserAgentOverride', {
    userAgent: given('user-agent') ?? identity.userAgent,
    acceptLanguage: given('accept-language') ?? identity.languages.join(','),
    platform: identity.platform,
    userAgentMetadata: identity.userAgentMetadata,
  });
}
