import { TrawlError } from '@trawl/contracts';
import type { CDPSession, Page, Request, Route } from 'playwright-core';
import type { ResolvedPoolOptions, Slot } from './browser-pool-state.types.js';

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

/** A CDP Fetch.enable pattern of the pool's. */
export interface FetchPattern {
  urlPattern: string;
  resourceType?: (typeof CDP_RESOURCE_TYPES)[keyof typeof CDP_RESOURCE_TYPES];
  requestStage: 'Request';
}

/** What CDP's Fetch.requestPaused says of a request (the fields the pool reads). */
export interface FetchPaused {
  requestId: string;
  request: { url: string };
  frameId: string;
  resourceType: string;
}

/**
 * What a page slot's requests may do: the SSRF guard, the blocked resource types and, for a task with `blockAds`, the
 * ad blocker. Without `proxyServer` every request goes through the context's route handler (`onRoute`); behind the
 * proxy nothing is routed through Node: blocked types (and ads) are refused inside the browser by CDP Fetch
 * interception (`interceptInBrowser`, `blockAdsFor`), and the guard is applied to the main frame's navigation and
 * every redirect hop for a clear error (`onRequest`).
 */
export class PageRequestGuard {
  private readonly blocked: Set<string>;
  /** The blocked types by their CDP names (Network.ResourceType). */
  private readonly blockedCdp: Set<string>;

  constructor(
    private readonly opts: Pick<ResolvedPoolOptions, 'guard' | 'proxyServer' | 'adBlocker' | 'blockResources'>,
  ) {
    this.blocked = new Set(opts.blockResources);
    this.blockedCdp = new Set(
      [...this.blocked]
        .filter((t) => t in CDP_RESOURCE_TYPES)
        .map((t) => CDP_RESOURCE_TYPES[t as keyof typeof CDP_RESOURCE_TYPES]),
    );
  }

  /**
   * Before the slot's page opens: without the proxy, the route handler on every request of the context; in any case
   * the listener that checks redirect hops (and, behind the proxy, the main frame's navigation).
   */
  async watchContext(slot: Slot): Promise<void> {
    // Behind the guarding proxy no request is routed through Node (each would cost a round trip over CDP): the proxy
    // is the SSRF guard for every request, and resource types are refused in the browser (interceptInBrowser).
    if (!this.opts.proxyServer) await slot.context.route('**/*', (route) => this.onRoute(slot, route));
    slot.context.on('request', (request) => this.onRequest(slot, request));
  }

  /**
   * Once the slot's page is open, behind the proxy with something to block: the slot's CDP session, intercepting the
   * blocked resource types in the browser. Undefined when there is nothing to intercept there.
   */
  async interceptInBrowser(slot: Slot): Promise<CDPSession | undefined> {
    if (!this.opts.proxyServer || (this.blocked.size === 0 && !this.opts.adBlocker)) return undefined;
    const cdp = await slot.context.newCDPSession(slot.page);
    cdp.on('Fetch.requestPaused', (event: FetchPaused) => {
      // Narrowed, only blocked types pause (all refused); widened, every request does and is decided one by one.
      const reply = this.refusesPaused(slot, event)
        ? cdp.send('Fetch.failRequest', { requestId: event.requestId, errorReason: 'BlockedByClient' })
        : cdp.send('Fetch.continueRequest', { requestId: event.requestId });
      reply.catch(() => undefined);
    });
    slot.targetId = (await cdp.send('Target.getTargetInfo')).targetInfo.targetId;
    const patterns = this.blockedPatterns();
    if (patterns.length > 0) await cdp.send('Fetch.enable', { patterns });
    slot.interceptsAll = false;
    return cdp;
  }

  /**
   * Sets the slot up for a task with or without `blockAds` (no ad blocker: without): the blocker's engine built (once
   * per process; the service builds it at start-up), and behind the proxy the Fetch interception widened to every
   * request or narrowed back to the blocked types, only when it changes from the slot's last task.
   */
  async blockAdsFor(slot: Slot, blockAds: boolean): Promise<void> {
    const blocker = this.opts.adBlocker;
    const on = blockAds && blocker !== undefined;
    slot.task.blockAds = on;
    if (on && !blocker.isReady) {
      await blocker.ready().catch((e: unknown) => {
        throw new TrawlError('SERVICE_UNAVAILABLE', 'the ad and tracker filters could not be loaded', { cause: e });
      });
    }
    if (!this.opts.proxyServer || !slot.cdp || slot.interceptsAll === undefined || slot.interceptsAll === on) return;
    const patterns = on ? [{ urlPattern: '*', requestStage: 'Request' as const }] : this.blockedPatterns();
    if (patterns.length > 0) await slot.cdp.send('Fetch.enable', { patterns });
    else await slot.cdp.send('Fetch.disable');
    slot.interceptsAll = on;
  }

  /** The CDP Fetch patterns of the blocked resource types. */
  blockedPatterns(): FetchPattern[] {
    const patterns: FetchPattern[] = [...this.blocked]
      .filter((type): type is keyof typeof CDP_RESOURCE_TYPES => type in CDP_RESOURCE_TYPES)
      .map((type) => ({ urlPattern: '*', resourceType: CDP_RESOURCE_TYPES[type], requestStage: 'Request' as const }));
    // With images blocked, the browser's own request for the tab icon (type Other, after every load) is refused too:
    // a request through the network service and the proxy per page for nothing (~3 ms of CPU a page).
    if (this.blocked.has('image'))
      patterns.push({ urlPattern: '*/favicon.ico', resourceType: 'Other', requestStage: 'Request' });
    return patterns;
  }

  /** A request paused in the browser: refused when of a blocked type or, for a task with blockAds, an ad or tracker. */
  refusesPaused(slot: Slot, event: FetchPaused): boolean {
    const { url } = event.request;
    if (this.blockedCdp.has(event.resourceType)) return true;
    if (this.blocked.has('image') && event.resourceType === 'Other' && /\/favicon\.ico$/.test(url)) return true;
    const task = slot.task;
    if (!task.blockAds) return false;
    const mainFrame = event.resourceType === 'Document' && event.frameId === slot.targetId;
    if (mainFrame) task.topUrl = url;
    const sourceUrl = task.topUrl ?? slot.page.url();
    if (!this.opts.adBlocker?.blocks({ url, sourceUrl, type: event.resourceType, mainFrame })) return false;
    task.adsBlocked++;
    return true;
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
      if (task.blockAds) {
        const mainFrame = isMainNavigation(slot.page, request);
        if (mainFrame) task.topUrl = url;
        const sourceUrl = task.topUrl ?? slot.page.url();
        if (this.opts.adBlocker?.blocks({ url, sourceUrl, type: request.resourceType(), mainFrame })) {
          task.adsBlocked++;
          await route.abort('blockedbyclient');
          return;
        }
      }
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
   * Watches the requests the route handler does not see: redirect hops (Playwright does not route them) and, behind
   * the proxy, every request. They cannot be held back here, but the guard is applied to them, and a refusal fails
   * the task with URL_NOT_ALLOWED and closes the context, so nothing it returned reaches the caller. The task's
   * outcome waits for these checks (`checks`). Which requests: without the proxy, every redirect hop (nothing else
   * held it back); behind it, only the main frame's navigation and its hops, as the proxy refuses every other request
   * and hop before it leaves. So a refused subresource only fails to load in both, even one that got there by a
   * redirect (a script on `http://` of a site Chromium upgrades to `https://` by its HSTS list is such a hop).
   */
  private onRequest(slot: Slot, request: Request): void {
    const redirected = request.redirectedFrom() !== null;
    if (!redirected && !this.opts.proxyServer) return; // the route handler saw it
    const task = slot.task;
    const url = request.url();
    if (!url.startsWith('http:') && !url.startsWith('https:')) return;
    if (request.resourceType() === 'document') task.documentOrigins.add(new URL(url).origin);
    if (this.opts.proxyServer ? !isMainNavigation(slot.page, request) : !redirected) return;
    task.checks.push(
      this.opts.guard(url).catch((e: unknown) => {
        const refusal = e instanceof TrawlError ? e : new TrawlError('URL_NOT_ALLOWED', `request to ${url} refused`);
        task.refused ??= refusal;
        task.abort?.(refusal);
      }),
    );
  }
}

function isMainNavigation(page: Page, request: Request): boolean {
  try {
    return request.isNavigationRequest() && request.frame() === page.mainFrame();
  } catch {
    return false; // a worker's request has no frame
  }
}
