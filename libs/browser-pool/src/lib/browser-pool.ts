import { TrawlError } from '@trawl/contracts';
import { chromium, type Browser, type BrowserContext, type CDPSession, type Page, type Request, type Route } from 'playwright-core';
import { CHROMIUM_ARGS } from './chromium-path.js';
import { DEFAULT_POOL_OPTIONS, type BrowserPoolOptions, type BrowserPoolStats } from './browser-pool.options.js';
import { PermitQueue } from './permit-queue.js';

/** What a task gets: its own page, and the deadline it must finish by. */
export interface PageTaskContext {
  page: Page;
  /** Epoch milliseconds. */
  deadline: number;
  /** Milliseconds left before the deadline (at least 1). */
  remainingMs(): number;
}

export interface RunOptions {
  /** Epoch milliseconds by which the task (queueing and launch included) must be done. */
  deadline: number;
  /** Extra HTTP headers for every request of the task (a fresh context is always used then). */
  headers?: Record<string, string>;
}

/** Per-task state a context's route handler and listeners write to. */
interface TaskState {
  documentOrigins: Set<string>;
  /** Guard checks still running for the task's requests; the outcome waits for them. */
  checks: Promise<void>[];
  refused?: TrawlError;
  abort?: (e: TrawlError) => void;
}

interface Slot {
  context: BrowserContext;
  page: Page;
  cdp?: CDPSession;
  uses: number;
  withHeaders: boolean;
  crashed: boolean;
  task: TaskState;
}

interface PooledBrowser {
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

/** Returns the number of storage items a page's origin holds (local, session, IndexedDB, CacheStorage). */
async function storageProbe(): Promise<number> {
  const count = async (f: () => number | Promise<number>) => {
    try {
      return await f();
    } catch {
      return 0; // not available here (opaque origin, insecure context)
    }
  };
  const counts = await Promise.all([
    count(() => localStorage.length + sessionStorage.length),
    count(async () => (await indexedDB.databases()).length),
    count(async () => (self.caches ? (await caches.keys()).length : 0)),
  ]);
  return counts[0] + counts[1] + counts[2];
}

const STORAGE_PROBE = `(${storageProbe.toString()})()`;

/**
 * A bounded pool of Chromium browsers (Playwright). `run(task, { deadline })` waits for a free page (bounded queue,
 * OVERLOADED when full), gives the task a page in its own BrowserContext and enforces the deadline end to end
 * (UPSTREAM_TIMEOUT; the context is closed, which stops everything the task was doing). Every request the browser
 * makes passes the SSRF guard; blocked resource types are aborted. Browsers are retired after N tasks and replaced
 * when they crash. See README for the context reuse rule.
 */
export class BrowserPool {
  private readonly opts: Required<Omit<BrowserPoolOptions, 'onEvent' | 'proxyServer'>> & Pick<BrowserPoolOptions, 'onEvent' | 'proxyServer'>;
  private readonly permits: PermitQueue;
  private readonly browsers: PooledBrowser[] = [];
  private readonly blocked: Set<string>;
  private nextId = 1;
  private closed = false;
  private readonly counters = {
    launched: 0,
    retired: 0,
    crashed: 0,
    tasksCompleted: 0,
    tasksFailed: 0,
    contextsReused: 0,
  };

  constructor(options: Partial<BrowserPoolOptions> & Pick<BrowserPoolOptions, 'executablePath' | 'guard'>) {
    this.opts = { ...DEFAULT_POOL_OPTIONS, launcher: chromium, ...options };
    this.permits = new PermitQueue(this.opts.maxBrowsers * this.opts.maxPagesPerBrowser, this.opts.queueLimit);
    this.blocked = new Set(this.opts.blockResources);
  }

  stats(): BrowserPoolStats {
    return {
      browsers: this.browsers.filter((b) => !b.dead).length,
      busyPages: this.permits.busy,
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
    const slots = await Promise.all(Array.from({ length: this.opts.maxPagesPerBrowser }, () => this.takeSlot(pb, undefined)));
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
    await this.permits.acquire(deadline);
    const pb = this.pickBrowser();
    let slot: Slot | undefined;
    let ok = false;
    try {
      const taking = this.takeSlot(pb, headers);
      slot = await raceDeadline(taking, deadline, 'the deadline passed while opening a browser page').catch((e: unknown) => {
        taking.then((s) => s.context.close().catch(() => undefined), () => undefined);
        throw e;
      });
      const result = await this.runInSlot(pb, slot, task, deadline);
      ok = true;
      return result;
    } catch (e) {
      throw this.explain(e, pb);
    } finally {
      if (ok) this.counters.tasksCompleted++;
      else this.counters.tasksFailed++;
      void this.release(pb, slot, ok);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.permits.close(new TrawlError('SERVICE_UNAVAILABLE', 'browser pool is shutting down'));
    await Promise.all(this.browsers.map((b) => this.closeBrowser(b)));
  }

  private async runInSlot<T>(pb: PooledBrowser, slot: Slot, task: (ctx: PageTaskContext) => Promise<T>, deadline: number): Promise<T> {
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
    const running = task({ page: slot.page, deadline, remainingMs: () => Math.max(1, deadline - Date.now()) });
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
    pb.ready = this.opts.launcher
      .launch({
        executablePath: this.opts.executablePath,
        headless: true,
        args: [...CHROMIUM_ARGS],
        timeout: this.opts.launchTimeoutMs,
        ...(this.opts.proxyServer ? { proxy: { server: this.opts.proxyServer } } : {}),
      })
      .then(
        (browser) => {
          pb.browser = browser;
          this.counters.launched++;
          this.opts.onEvent?.({ type: 'launched', browserId: pb.id });
          browser.on('disconnected', () => this.onDisconnected(pb));
          if (this.closed) void this.closeBrowser(pb);
          return browser;
        },
        (e: unknown) => {
          pb.dead = true;
          this.forget(pb);
          throw new TrawlError('SERVICE_UNAVAILABLE', `could not launch Chromium at ${this.opts.executablePath}: ${(e as Error).message}`, {
            cause: e,
          });
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

  private async takeSlot(pb: PooledBrowser, headers: Record<string, string> | undefined): Promise<Slot> {
    const browser = await pb.ready;
    if (!headers && this.opts.reuseContexts) {
      const reused = pb.idle.pop();
      if (reused) {
        if (reused.uses > 0) this.counters.contextsReused++; // 0: opened ahead by warmUp, first task
        reused.uses++;
        reused.task = { documentOrigins: new Set(), checks: [] };
        return reused;
      }
    }
    const context = await browser.newContext({
      extraHTTPHeaders: headers,
      serviceWorkers: 'block',
      acceptDownloads: false,
    });
    const slot: Slot = {
      context,
      page: undefined as unknown as Page,
      uses: 1,
      withHeaders: headers !== undefined,
      crashed: false,
      task: { documentOrigins: new Set(), checks: [] },
    };
    // Behind the guarding proxy no request is routed through Node (each would cost a round trip over CDP): the proxy
    // is the SSRF guard for every request, and resource types are refused in the browser (blockInBrowser).
    if (!this.opts.proxyServer) await context.route('**/*', (route) => this.onRoute(slot, route));
    context.on('request', (request) => this.onRequest(slot, request));
    slot.page = await context.newPage();
    if (this.opts.proxyServer && this.blocked.size > 0) slot.cdp = await this.blockInBrowser(slot.page);
    slot.page.on('crash', () => {
      slot.crashed = true;
      slot.task.abort?.(new TrawlError('UPSTREAM_ERROR', 'the page crashed the browser tab'));
    });
    return slot;
  }

  /** Every request of the context: blocked types are aborted, the rest must pass the SSRF guard. */
  private async onRoute(slot: Slot, route: Route): Promise<void> {
    const request = route.request();
    const task = slot.task;
    try {
      if (this.blocked.has(request.resourceType())) {
        await route.abort('blockedbyclient');
        return;
      }
      const url = request.url();
      if (url.startsWith('http:') || url.startsWith('https:')) {
        try {
          await this.opts.guard(url);
        } catch (e) {
          const refusal = e instanceof TrawlError ? e : new TrawlError('URL_NOT_ALLOWED', `request to ${url} refused`);
          if (request.isNavigationRequest() && request.frame() === slot.page.mainFrame()) task.refused ??= refusal;
          await route.abort('blockedbyclient');
          return;
        }
        if (request.resourceType() === 'document') task.documentOrigins.add(new URL(url).origin);
      }
      await route.continue();
    } catch {
      // the context closed under us (deadline, shutdown): nothing left to route
    }
  }

  /**
   * Refuses the blocked resource types inside the browser: CDP Fetch interception limited to those types, so only
   * they pause (and are failed at once); documents, scripts and data requests are never held. Covers the page and
   * its same-process frames (a cross-site iframe's images still load; the proxy guards them like everything else).
   */
  private async blockInBrowser(page: Page): Promise<CDPSession> {
    const cdp = await page.context().newCDPSession(page);
    cdp.on('Fetch.requestPaused', (event: { requestId: string }) => {
      cdp.send('Fetch.failRequest', { requestId: event.requestId, errorReason: 'BlockedByClient' }).catch(() => undefined);
    });
    const patterns = [...this.blocked]
      .filter((type): type is keyof typeof CDP_RESOURCE_TYPES => type in CDP_RESOURCE_TYPES)
      .map((type) => ({ urlPattern: '*', resourceType: CDP_RESOURCE_TYPES[type], requestStage: 'Request' as const }));
    // With images blocked, the browser's own request for the tab icon (type Other, after every load) is refused too:
    // a request through the network service and the proxy per page for nothing (~3 ms of CPU a page).
    if (this.blocked.has('image')) patterns.push({ urlPattern: '*/favicon.ico', resourceType: 'Other', requestStage: 'Request' });
    await cdp.send('Fetch.enable', { patterns });
    return cdp;
  }

  /**
   * Watches the requests the route handler does not see: redirect hops (Playwright does not route them) and, behind
   * the proxy, every request. They cannot be held back here (the proxy refuses them before they leave), but the
   * guard is applied to each redirect hop and to the main frame's navigation, and a refusal fails the task with
   * URL_NOT_ALLOWED and closes the context, so nothing it returned reaches the caller. The task's outcome waits for
   * these checks (`checks`). A refused subresource only fails to load, as with the route handler.
   */
  private onRequest(slot: Slot, request: Request): void {
    const redirected = request.redirectedFrom() !== null;
    if (!redirected && !this.opts.proxyServer) return; // the route handler saw it
    const task = slot.task;
    const url = request.url();
    if (!url.startsWith('http:') && !url.startsWith('https:')) return;
    if (request.resourceType() === 'document') task.documentOrigins.add(new URL(url).origin);
    if (!redirected && !isMainNavigation(slot.page, request)) return;
    task.checks.push(
      this.opts.guard(url).catch((e: unknown) => {
        const refusal = e instanceof TrawlError ? e : new TrawlError('URL_NOT_ALLOWED', `request to ${url} refused`);
        task.refused ??= refusal;
        task.abort?.(refusal);
      }),
    );
  }

  /** After a task: keep the context for reuse when it is provably clean, else close it. Holds the permit until done. */
  private async release(pb: PooledBrowser, slot: Slot | undefined, ok: boolean): Promise<void> {
    try {
      if (slot) {
        if (ok && !pb.dead && !pb.retired && (await this.isClean(slot))) {
          if (slot.uses % this.opts.gcEveryTasks === 0) {
            slot.cdp ??= await slot.context.newCDPSession(slot.page);
            await slot.cdp.send('HeapProfiler.collectGarbage');
          }
          pb.idle.push(slot); // the next task's navigation replaces the document
        } else {
          await slot.context.close();
        }
      }
    } catch {
      await slot?.context.close().catch(() => undefined);
    } finally {
      pb.active--;
      this.permits.release();
      if (pb.retired && pb.active === 0) void this.closeBrowser(pb);
    }
  }

  private async isClean(slot: Slot): Promise<boolean> {
    if (!this.opts.reuseContexts || slot.withHeaders || slot.crashed || slot.task.refused) return false;
    if (slot.uses >= this.opts.maxTasksPerContext || slot.task.documentOrigins.size > 1) return false;
    if (slot.page.isClosed() || slot.context.pages().length !== 1 || slot.page.frames().length !== 1) return false;
    // The probe goes straight over the slot's CDP session (one Runtime.evaluate): Playwright's evaluate costs more.
    slot.cdp ??= await slot.context.newCDPSession(slot.page);
    const [cookies, probe] = await Promise.all([
      slot.context.cookies(),
      slot.cdp.send('Runtime.evaluate', { expression: STORAGE_PROBE, awaitPromise: true, returnByValue: true, silent: true }),
    ]);
    return cookies.length === 0 && !probe.exceptionDetails && probe.result.value === 0;
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

function isMainNavigation(page: Page, request: Request): boolean {
  try {
    return request.isNavigationRequest() && request.frame() === page.mainFrame();
  } catch {
    return false; // a worker's request has no frame
  }
}

/** Playwright's resource type names to CDP's (Network.ResourceType), for in-browser blocking. */
const CDP_RESOURCE_TYPES = {
  image: 'Image',
  media: 'Media',
  font: 'Font',
  stylesheet: 'Stylesheet',
  texttrack: 'TextTrack',
  manifest: 'Manifest',
  other: 'Other',
} as const;

function raceDeadline<T>(promise: Promise<T>, deadline: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TrawlError('UPSTREAM_TIMEOUT', message)), Math.max(1, deadline - Date.now()));
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
