import {
  TrawlError,
  type RenderCookie,
  type RenderPageReply,
  type RenderPageRequestDto,
  type UpstreamEngine,
} from '@trawl/contracts';
import { adoptChromeVersion } from '@trawl/browser-identity';
import type { Deadline } from './deadline.policy.js';
import { browserMayPass, combineAttempts, type EngineAttempt } from './engine-attempts.policy.js';
import type { Clock } from '@trawl/safe-fetch';
import type { UpstreamFetcher, UpstreamPage } from './upstream-fetcher.service.js';

/**
 * Renders one page in the browser fleet: in the services, a NATS request on SUBJECTS.renderPage to extractor-scrape
 * (`MessagingClient.send`), with `timeoutMs` as the request's deadline.
 */
export type RenderFn = (request: RenderPageRequestDto, timeoutMs: number) => Promise<RenderPageReply>;

export interface UpstreamPageSourceOptions {
  fetcher: UpstreamFetcher;
  /** The browser fleet; absent, `browser` fails with SERVICE_UNAVAILABLE and `auto` is plain HTTP. */
  render?: RenderFn;
  /** The engine of a request that names none (SEARCH_ENGINE, MAPS_ENGINE, RETAIL_ENGINE). */
  defaultEngine: UpstreamEngine;
  /** How long a host whose plain HTTP answer was a wall is sent straight to the browser, ms (0: never). */
  browserMemoryMs: number;
  now?: Clock;
}

/** One upstream page to get and parse. */
export interface UpstreamPageRequest {
  /** The URL plain HTTP fetches. */
  url: string;
  /** The URL a browser renders, when it is another (a maps search: the `/maps/search/…` page, not the JSON). */
  browserUrl?: string;
  /** Names the page in error messages ("search page"). */
  what: string;
  /** The request's deadline: both engines share it. */
  deadline: Deadline;
  engine?: UpstreamEngine;
  hl?: string;
  gl?: string;
  referer?: string;
  /** Headers for plain HTTP (the browser gets `cookies` and a referer). */
  headers?: Record<string, string>;
  /** Cookies for the page's host (both engines: a `cookie` header over HTTP). */
  cookies?: RenderCookie[];
}

/** A parse of the page, and which engine got it. */
export interface SourcedPage<T> {
  value: T;
  engine: 'http' | 'browser';
}

/**
 * Where the upstream extractors get their pages, by engine:
 * - `http`: the UpstreamFetcher (plain HTTP, browser-like headers, proxies);
 * - `browser`: the browser fleet renders the page (RenderFn, over NATS), then the same parser reads it;
 * - `auto`: plain HTTP first; when its answer is a wall a browser passes (enable-JavaScript, consent, JavaScript
 *   challenge) or a page without the content the parser needs (PAGE_NOT_RECOGNISED), the same URL is rendered and
 *   parsed by the same parser. Such a host is remembered, for `browserMemoryMs`, as needing a browser, so later
 *   requests skip the wasted HTTP try. The memory is per replica, in this process: a new replica learns it again
 *   with one wasted HTTP try.
 *
 * When every engine tried fails, one TrawlError names each engine and what stopped it (combineAttempts).
 */
export class UpstreamPageSource {
  /** Host → epoch ms until which it goes straight to the browser. */
  private readonly needsBrowser = new Map<string, number>();
  /** Fleet session key (host, hl, gl) → how many of its sessions an upstream blocked so far. */
  private readonly sessionGenerations = new Map<string, number>();
  private readonly now: Clock;

  constructor(private readonly options: UpstreamPageSourceOptions) {
    this.now = options.now ?? Date.now;
  }

  /** A deadline on the fetcher's clock. */
  deadline(timeoutMs: number): Deadline {
    return this.options.fetcher.deadline(timeoutMs);
  }

  /** The engine a request resolves to. */
  engineOf(engine: UpstreamEngine | undefined): UpstreamEngine {
    return engine ?? this.options.defaultEngine;
  }

  /** True while `url`'s host is remembered as needing a browser. */
  remembersBrowserFor(url: string): boolean {
    const host = hostOf(url);
    const until = this.needsBrowser.get(host);
    if (until === undefined) return false;
    if (until > this.now()) return true;
    this.needsBrowser.delete(host);
    return false;
  }

  async get<T>(req: UpstreamPageRequest, parse: (page: UpstreamPage) => T | Promise<T>): Promise<SourcedPage<T>> {
    const engine = this.engineOf(req.engine);
    if (engine === 'http') return this.only('http', () => this.viaHttp(req, parse));
    if (engine === 'browser') return this.only('browser', () => this.viaBrowser(req, parse));
    const attempts: EngineAttempt[] = [];
    if (this.options.render && this.remembersBrowserFor(req.url)) {
      attempts.push({ engine: 'http', error: undefined, note: 'skipped (host remembered as needing a browser)' });
    } else {
      try {
        return { value: await this.viaHttp(req, parse), engine: 'http' };
      } catch (e) {
        if (!this.options.render || !browserMayPass(e)) throw combineAttempts([{ engine: 'http', error: e }]);
        attempts.push({ engine: 'http', error: e });
        this.remember(req.url);
      }
    }
    try {
      return { value: await this.viaBrowser(req, parse), engine: 'browser' };
    } catch (e) {
      attempts.push({ engine: 'browser', error: e });
      throw combineAttempts(attempts);
    }
  }

  private async only<T>(engine: 'http' | 'browser', run: () => Promise<T>): Promise<SourcedPage<T>> {
    try {
      return { value: await run(), engine };
    } catch (e) {
      throw combineAttempts([{ engine, error: e }]);
    }
  }

  private remember(url: string): void {
    if (this.options.browserMemoryMs <= 0) return;
    this.needsBrowser.set(hostOf(url), this.now() + this.options.browserMemoryMs);
  }

  private viaHttp<T>(req: UpstreamPageRequest, parse: (page: UpstreamPage) => T | Promise<T>): Promise<T> {
    const cookie = req.cookies?.map((c) => `${c.name}=${c.value}`).join('; ');
    return this.options.fetcher.fetchParsed(
      req.url,
      {
        deadline: req.deadline,
        hl: req.hl,
        gl: req.gl,
        referer: req.referer,
        what: req.what,
        headers: { ...req.headers, ...(cookie ? { cookie } : {}) },
      },
      parse,
    );
  }

  private async viaBrowser<T>(req: UpstreamPageRequest, parse: (page: UpstreamPage) => T | Promise<T>): Promise<T> {
    const { render } = this.options;
    if (!render)
      throw new TrawlError('SERVICE_UNAVAILABLE', `no browser fleet is configured to render the ${req.what}`);
    req.deadline.check(`${req.what} not rendered`);
    const url = req.browserUrl ?? req.url;
    const timeoutMs = req.deadline.remainingMs();
    const key = sessionOf(url, req.hl, req.gl);
    const generation = this.sessionGenerations.get(key) ?? 0;
    const session = `${key}:${generation}`;
    const reply = await render(
      {
        url,
        timeout: timeoutMs,
        what: req.what,
        session,
        ...(generation > 0 ? { retireSession: `${key}:${generation - 1}` } : {}),
        ...(req.hl ? { hl: req.hl } : {}),
        ...(req.gl ? { gl: req.gl } : {}),
        ...(req.referer ? { headers: { referer: req.referer } } : {}),
        ...(req.cookies && req.cookies.length > 0 ? { cookies: req.cookies } : {}),
      },
      timeoutMs,
    );
    if (reply.browserVersion) adoptChromeVersion(reply.browserVersion);
    const page: UpstreamPage = {
      url: reply.url || url,
      status: reply.status,
      html: reply.html,
      contentType: reply.headers['content-type'] ?? null,
    };
    try {
      // A rendered page feeds the drift metrics as a fetched one does.
      if (reply.status < 400) return await this.options.fetcher.parseObserved(url, page, parse);
      // A wall served with an error status (a 503 robot check) is named by the parser; anything else by the status.
      try {
        await parse(page);
      } catch (e) {
        if (e instanceof TrawlError && e.code === 'UPSTREAM_BLOCKED') throw e;
      }
      throw statusError(reply.status, hostOf(page.url), req.what);
    } catch (e) {
      // The upstream blocked this session: the next render uses a new one (a new identity and proxy) and asks the
      // fleet to retire this one.
      if (e instanceof TrawlError && e.code === 'UPSTREAM_BLOCKED') {
        if ((this.sessionGenerations.get(key) ?? 0) === generation) this.sessionGenerations.set(key, generation + 1);
      }
      throw e;
    }
  }
}

/** The wire error for an upstream's error status, as the fetcher maps it. */
function statusError(status: number, host: string, what: string): TrawlError {
  if (status === 429 || status === 503)
    return new TrawlError('UPSTREAM_BLOCKED', `${host} blocked the request for the ${what} (HTTP ${status})`);
  if (status === 404 || status === 410)
    return new TrawlError('UPSTREAM_NOT_FOUND', `${host} has no such ${what} (HTTP ${status})`);
  return new TrawlError('UPSTREAM_ERROR', `${host} answered HTTP ${status} for the ${what}`);
}

/**
 * The fleet session of a render: one per upstream host, language and country. Its context keeps the host's cookies
 * (consent, the JavaScript proof, the WAF token) and its identity for the pool's session lifetime, so a wall is met
 * once per session rather than on every page; the pool gives the session a new identity when it ends.
 */
export function sessionOf(url: string, hl: string | undefined, gl: string | undefined): string {
  // 90 characters leave room for the generation suffix within the render contract's 100.
  return `upstream:${hostOf(url)}:${hl ?? ''}:${gl ?? ''}`.replace(/[^\w.:-]/g, '_').slice(0, 90);
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/** Google's consent cookies (GOOGLE_CONSENT_COOKIE) as a render's cookie list. */
export function cookieList(header: string): RenderCookie[] {
  return header
    .split(';')
    .map((part) => part.trim())
    .filter((part) => part.includes('='))
    .map((part) => {
      const i = part.indexOf('=');
      return { name: part.slice(0, i), value: part.slice(i + 1) };
    });
}
