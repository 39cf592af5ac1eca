import type { BrowserIdentity } from '@trawl/browser-identity';
import { TrawlError } from '@trawl/contracts';
import type { Browser, CDPSession, Page } from 'playwright-core';
import { PROXY_LOOPBACK_TOO } from './browser-launcher.service.js';
import { newTaskState, type Session, type Slot } from './browser-pool-state.types.js';
import type { PageRequestGuard } from './page-request.guard.js';
import { trackNetwork } from './settle-page.util.js';

/** How a new page slot is opened for a task. */
export interface SlotOpening {
  /** Extra HTTP headers (every request of the context, or scoped to `scopedTo`'s page). */
  headers?: Record<string, string>;
  viewport?: { width: number; height: number };
  /** A context for this task only (never reused): it had headers or a viewport. */
  fresh: boolean;
  /** `RunOptions.headersFor`: `headers` go to this page only (scopeHeaders). */
  scopedTo?: string;
}

/**
 * Opens a page slot: a BrowserContext of the session's identity (locale, time zone, device, geolocation) through the
 * session's upstream proxy lane, service workers blocked, the request guard watching it, one tab with the identity
 * applied over CDP (user agent, client hints), its network tracked for settling, and a crash of the tab failing the
 * task it serves.
 */
export class PageSlotFactory {
  constructor(private readonly requests: PageRequestGuard) {}

  async open(browser: Browser, session: Session, opening: SlotOpening): Promise<Slot> {
    const { headers, viewport, fresh, scopedTo } = opening;
    const identity = session.identity;
    const context = await browser.newContext({
      extraHTTPHeaders: scopedTo ? undefined : headers, // scoped: scopeHeaders, once the page is open
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
    if (scopedTo && headers) await scopeHeaders(slot.page, headers, scopedTo);
    return slot;
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
