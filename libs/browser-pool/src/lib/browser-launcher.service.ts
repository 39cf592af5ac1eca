import { BrowserIdentities, chromiumVersionOf } from '@trawl/browser-identity';
import { TrawlError } from '@trawl/contracts';
import type { Browser } from 'playwright-core';
import type { PoolCounters, PooledBrowser, ResolvedPoolOptions } from './browser-pool-state.types.js';
import { CHROMIUM_ARGS } from './chromium-path.resolver.js';

/**
 * Chromium's bypass rule that sends loopback through the proxy too (it bypasses it by default): written here, not left
 * to Playwright, which adds it only unless PLAYWRIGHT_DISABLE_FORCED_CHROMIUM_PROXIED_LOOPBACK is set. Without it a
 * page could reach 127.0.0.1 around the guarding proxy.
 */
export const PROXY_LOOPBACK_TOO = '<-loopback>';

/**
 * The pool's browsers: launched on demand (through the guarding proxy when there is one, with the identity's user
 * agent), given tasks (`pick`: the one with most idle contexts, then the busiest, within maxPagesPerBrowser), retired
 * after retireAfterPages tasks and closed once their last task ends, forgotten when they disconnect or crash (a
 * crash is counted; the next task launches a replacement). Also keeps the identities of the running Chromium's
 * version, for the sessions.
 */
export class BrowserLauncher {
  private readonly browsers: PooledBrowser[] = [];
  private nextId = 1;
  private known?: BrowserIdentities;
  private closed = false;

  constructor(
    private readonly opts: Pick<
      ResolvedPoolOptions,
      | 'executablePath'
      | 'launcher'
      | 'sandbox'
      | 'launchTimeoutMs'
      | 'proxyServer'
      | 'maxPagesPerBrowser'
      | 'retireAfterPages'
      | 'onEvent'
    >,
    private readonly counters: Pick<PoolCounters, 'launched' | 'retired' | 'crashed'>,
  ) {}

  /** The browsers launched or launching and not yet forgotten (serving and retiring). */
  get all(): readonly PooledBrowser[] {
    return this.browsers;
  }

  /**
   * The browser for the next task (launched when none has a free page), its task counted: the one with most idle
   * contexts, then the busiest. A browser that reaches retireAfterPages takes this task and no more.
   */
  pick(): PooledBrowser {
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

  /** A task of `pb` ended: a retired browser is closed once its last task has. */
  release(pb: PooledBrowser): void {
    pb.active--;
    if (pb.retired && pb.active === 0) void this.closeBrowser(pb);
  }

  /** The identities of the running Chromium's version (a browser is launched to ask it when none runs yet). */
  async identities(): Promise<BrowserIdentities> {
    if (this.known) return this.known;
    const pb = this.browsers.find((b) => !b.dead) ?? this.launch();
    const identities = new BrowserIdentities({ version: (await pb.ready).version() });
    this.known ??= identities;
    return identities;
  }

  launch(): PooledBrowser {
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
    if (!this.known) {
      const version = chromiumVersionOf(this.opts.executablePath);
      if (version) this.known = new BrowserIdentities({ version });
    }
    const userAgent = this.known ? [`--user-agent=${this.known.create().userAgent}`] : [];
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
          if (this.known?.version !== browser.version())
            this.known = new BrowserIdentities({ version: browser.version() });
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

  /** Closes every browser; one still launching is closed as soon as it is up. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.browsers.map((b) => this.closeBrowser(b)));
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

  private async closeBrowser(pb: PooledBrowser): Promise<void> {
    if (pb.closing) return;
    pb.closing = true;
    pb.idle = [];
    const browser = pb.browser ?? (await pb.ready.catch(() => undefined));
    await browser?.close().catch(() => undefined);
    this.forget(pb);
  }
}
