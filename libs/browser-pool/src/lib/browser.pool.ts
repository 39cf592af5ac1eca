import { BrowserIdentities, chromiumVersionOf, type BrowserIdentity } from '@trawl/browser-identity';
import { TrawlError } from '@trawl/contracts';
import { chromium, type Browser, type CDPSession, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, sandboxDecision } from './chromium-path.resolver.js';
import { DEFAULT_POOL_OPTIONS, type BrowserPoolOptions, type BrowserPoolStats } from './browser-pool.options.js';
import type { PooledBrowser, ResolvedPoolOptions, Session, Slot } from './browser-pool-state.types.js';
import { newTaskState } from './browser-pool-state.types.js';
import type { PageTaskContext, RunOptions } from './browser-pool.types.js';
import { raceDeadline } from './deadline-bound.util.js';
import { PageRequestGuard } from './page-request.guard.js';
import { PermitQueue } from './permit.queue.js';
import { TabReset } from './tab-reset.service.js';
import { resetNetwork, trackNetwork } from './settle-page.util.js';

/**
 * Chromium's bypass rule that sends loopback through the proxy too (it bypasses it by default): written here, not left
 * to Playwright, which adds it only unless PLAYWRIGHT_DISABLE_FORCED_CHROMIUM_PROXIED_LOOPBACK is set. Without it a
 * page could reach 127.0.0.1 around the guarding proxy.
 */
const PROXY_LOOPBACK_TOO = '<-loopback>';

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
  private readonly browsers: PooledBrowser[] = [];
  private readonly requests: PageRequestGuard;
  private readonly tabs: TabReset;
  private readonly sessions = new Map<string, Session>();
  private readonly opening = new Map<string, Promise<Session>>();
  private identities?: BrowserIdentities;
  private nextId = 1;
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
    this.requests = new PageRequestGuard(this.opts);
    this.tabs = new TabReset(this.opts, this.counters);
  }

  stats(): BrowserPoolStats {
    return {
      browsers: this.browsers.filter((b) => !b.dead).length,
      busyPages: this.permits.busy,
      slots: this.opts.maxBrowsers * this.opts.maxPagesPerBrowser,
      stuckPages: [...this.holds].filter((h) => h.until < Date.now()).length,
      idleContexts: this.browsers.reduce((n, b) => n + b.idle.length, 0),
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
    if (this.browsers.length > 0) return;
    const pb = this.launch();
    await pb.ready;
    if (!this.opts.reuseContexts) return;
    const session = await this.session({});
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
    const pb = this.pickBrowser();
    let slot: Slot | undefined;
    let ok = false;
    try {
      await raceDeadline(pb.ready, deadline, 'the deadline passed while launching a browser');
      const session = await raceDeadline(
        this.session(options),
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
    const s = this.sessions.get(session);
    if (!s) return;
    this.sessions.delete(session);
    if (options.blocked && s.proxy) this.opts.upstreamProxies?.markBlocked(s.proxy, s.proxyScope || undefined);
    this.dropIdle((slot) => slot.session === s);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.permits.close(new TrawlError('SERVICE_UNAVAILABLE', 'browser pool is shutting down'));
    await Promise.all(this.browsers.map((b) => this.closeBrowser(b)));
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

  private pickBrowser(): PooledBrowser {
    const usable = this.browsers.filter((b) => !b.retired && !b.dead && b.active < this.opts.maxPagesPerBrowser);
    usable.sort((a, b) => b.idle.length - a.idle.length || b.active - a.active);
    const pb = usable[0] ?? this.launch();
    pb.active++;
    pb.served++;
    if (pb.served >= this.opts.retireAfterPages && !pb.retired) {
      pb.retired = true;
      this.counters.retired++;
      this.opts.onEvent?.({ type: 'retired', browserId: pb.id, pages: pb.served });
    }
    return pb;
  }

  private launch(): PooledBrowser {
    const pb: PooledBrowser = {
      id: this.nextId++,
      ready: undefined as unknown as Promise<Browser>,
      active: 0,
      served: 0,
      retired: false,
      dead: false,
      closing: false,
      idle: [],
    };
    // The identity's user agent for every target of the browser (workers and cross-site frames included), so none
    // says HeadlessChrome; each context's page also gets the full override with client hints (applyIdentity).
    if (!this.identities) {
      const version = chromiumVersionOf(this.opts.executablePath);
      if (version) this.identities = new BrowserIdentities({ version });
    }
    const userAgent = this.identities ? [`--user-agent=${this.identities.create().userAgent}`] : [];
    pb.ready = this.opts.launcher
      .launch({
        executablePath: this.opts.executablePath,
        headless: true,
        chromiumSandbox: this.opts.sandbox,
        args: [...CHROMIUM_ARGS, ...userAgent],
        timeout: this.opts.launchTimeoutMs,
        ...(this.opts.proxyServer ? { proxy: { server: this.opts.proxyServer, bypass: PROXY_LOOPBACK_TOO } } : {}),
      })
      .then(
        (browser) => {
          pb.browser = browser;
          if (this.identities?.version !== browser.version())
            this.identities = new BrowserIdentities({ version: browser.version() });
          this.counters.launched++;
          this.opts.onEvent?.({ type: 'launched', browserId: pb.id });
          browser.on('disconnected', () => this.onDisconnected(pb));
          if (this.closed) void this.closeBrowser(pb);
          return browser;
        },
        (e: unknown) => {
          pb.dead = true;
          this.forget(pb);
          throw new TrawlError(
            'SERVICE_UNAVAILABLE',
            `could not launch Chromium at ${this.opts.executablePath}: ${(e as Error).message}`,
            {
              cause: e,
            },
          );
        },
      );
    pb.ready.catch(() => undefined);
    this.browsers.push(pb);
    return pb;
  }

  private onDisconnected(pb: PooledBrowser): void {
    const expected = pb.closing;
    pb.dead = true;
    pb.idle = [];
    if (!expected) this.counters.crashed++;
    this.opts.onEvent?.({ type: 'disconnected', browserId: pb.id, expected });
    this.forget(pb);
  }

  private forget(pb: PooledBrowser): void {
    const i = this.browsers.indexOf(pb);
    if (i >= 0) this.browsers.splice(i, 1);
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
      const reusable = ok && !pb.dead && !pb.retired && this.sessions.get(slot.session.key) === slot.session;
      if (reusable && (await this.tabs.keepAfter(slot, tenant))) pb.idle.push(slot);
      else await this.tabs.close(slot);
    } finally {
      pb.active--;
      this.permits.release();
      if (pb.retired && pb.active === 0) void this.closeBrowser(pb);
    }
  }

  /** The task's session: the live one for its key, else a new one (identity drawn, next upstream proxy). */
  private async session(
    options: Pick<RunOptions, 'session' | 'hl' | 'gl' | 'location' | 'mobile' | 'proxyScope'>,
  ): Promise<Session> {
    const { location, mobile } = options;
    const hl = location ? undefined : options.hl;
    const gl = location ? location.country?.toUpperCase() : options.gl;
    const variant = `${location ? `|loc:${location.languages?.join(',') ?? ''}` : ''}${mobile ? '|mobile' : ''}`;
    const key = options.session ?? `pool:${hl ?? ''}|${gl ?? ''}${variant}`;
    const live = this.sessions.get(key);
    if (live && live.tasks < this.opts.sessionMaxTasks && Date.now() - live.startedAt < this.opts.sessionMaxAgeMs)
      return live;
    const pending = this.opening.get(key);
    if (pending) return pending;
    const opening = (async () => {
      const identities = this.identities ?? new BrowserIdentities({ version: (await this.anyBrowser()).version() });
      this.identities ??= identities;
      const proxyScope = options.proxyScope ?? '';
      const proxy = this.opts.upstreamProxies?.next(location?.country?.toUpperCase(), proxyScope || undefined);
      const lane = proxy ? await this.opts.upstreamProxies?.laneFor(proxy) : undefined;
      const fresh: Session = {
        key,
        named: options.session !== undefined,
        identity: identities.create({
          hl,
          gl,
          mobile,
          ...(location ? { languages: location.languages, geolocate: true } : {}),
        }),
        proxy,
        lane,
        proxyScope,
        tasks: 0,
        startedAt: Date.now(),
      };
      if (live) this.dropIdle((slot) => slot.session === live);
      this.sessions.set(key, fresh);
      return fresh;
    })().finally(() => this.opening.delete(key));
    this.opening.set(key, opening);
    return opening;
  }

  private async anyBrowser(): Promise<Browser> {
    const pb = this.browsers.find((b) => !b.dead) ?? this.launch();
    return pb.ready;
  }

  private dropIdle(matches: (slot: Slot) => boolean): void {
    for (const pb of this.browsers) {
      const drop = pb.idle.filter(matches);
      pb.idle = pb.idle.filter((slot) => !matches(slot));
      for (const slot of drop) void slot.context.close().catch(() => undefined);
    }
  }

  private async closeBrowser(pb: PooledBrowser): Promise<void> {
    if (pb.closing) return;
    pb.closing = true;
    pb.idle = [];
    const browser = pb.browser ?? (await pb.ready.catch(() => undefined));
    await browser?.close().catch(() => undefined);
    this.forget(pb);
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
