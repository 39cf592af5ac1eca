import { TrawlError } from '@trawl/contracts';
import { ProxyAgent, type Dispatcher } from 'undici';
import { browserHeaders } from './browser-headers.builder.js';
import { Deadline } from './deadline.policy.js';
import { ProxyRotation, type Clock } from '@trawl/safe-fetch';
import { AMAZON_HOST, GOOGLE_HOST } from './upstream-origin.policy.js';

/** What the fetcher needs of a response (the fetch API's Response, or undici's). */
export interface FetchResponse {
  status: number;
  url: string;
  headers: { get(name: string): string | null };
  text(): Promise<string>;
}

export interface FetchInit {
  method: 'GET';
  headers: Record<string, string>;
  signal: AbortSignal;
  redirect: 'follow';
  /** The proxy's undici dispatcher, when the request goes through one. */
  dispatcher?: Dispatcher;
  /** Largest body to read, bytes. */
  maxBytes?: number;
}

/** The HTTP client underneath: in services the SSRF-guarded fetch of @trawl/safe-fetch. */
export type FetchFn = (url: string, init: FetchInit) => Promise<FetchResponse>;

export interface UpstreamFetcherOptions {
  fetch: FetchFn;
  /** Proxies to rotate through; none: direct. */
  proxies?: ProxyRotation;
  userAgent?: string;
  /** Largest page accepted, bytes (default 10 MiB). */
  maxBytes?: number;
  now?: Clock;
  /** Builds the dispatcher of a proxy URL (tests stub it; default: undici ProxyAgent, one per proxy). */
  proxyDispatcher?: (proxyUrl: string) => Dispatcher;
  /** Told of every record `fetchParsed` returns and every page the parser did not recognise (drift metrics). */
  parseObserver?: UpstreamParseObserver;
  /**
   * Hosts besides the real upstreams' (Google's and Amazon's, by `GOOGLE_HOST`/`AMAZON_HOST`) that the parse observer
   * may name, e.g. the simulator's `host:port`. Any other host (a caller's own site given to /extract) is reported as
   * `other`: a metric label never carries a caller's target, and its values stay bounded.
   */
  upstreamHosts?: readonly string[];
}

/** The parse observer's label for a page of any host that is not a known upstream. */
export const OTHER_UPSTREAM = 'other';

/** Structurally the telemetry lib's ParseObserver: what `fetchParsed` reports. */
export interface UpstreamParseObserver {
  parsed(record: unknown): void;
  unrecognised(upstream: string): void;
}

export interface FetchPageOptions {
  /** The request's deadline; or `timeoutMs` for a deadline of its own. */
  deadline?: Deadline;
  timeoutMs?: number;
  /** Host language and country: set Accept-Language (as the browser identity for them would). */
  hl?: string;
  gl?: string;
  referer?: string;
  /** Names the page in error messages ("search page", "product page"). */
  what?: string;
  /** Headers added to the browser's (e.g. `cookie`). */
  headers?: Record<string, string>;
}

/** A fetched page. */
export interface UpstreamPage {
  /** Final URL, after redirects. */
  url: string;
  status: number;
  html: string;
  contentType: string | null;
  /** The proxy the page came through, if any. */
  proxy?: string;
}

const BLOCK_STATUSES = new Set([429, 503]);

/**
 * Fetches upstream pages the way a browser would ask for them: Chrome's headers, Accept-Language from `hl`, an optional
 * rotating proxy, the request's deadline. Failures become the wire's error codes:
 *
 * | upstream                                     | error               |
 * |----------------------------------------------|---------------------|
 * | no answer before the deadline                | UPSTREAM_TIMEOUT    |
 * | 429 or 503 (rate limit, captcha, robot page)  | UPSTREAM_BLOCKED    |
 * | redirect to a captcha (`/sorry/`) page        | UPSTREAM_BLOCKED    |
 * | 404 or 410                                   | UPSTREAM_NOT_FOUND  |
 * | any other 4xx/5xx, connection failure         | UPSTREAM_ERROR      |
 * | a page over `maxBytes` (after decompression)  | CONTENT_TOO_LARGE   |
 *
 * A TrawlError from the HTTP client (the SSRF guard's URL_NOT_ALLOWED) passes through unchanged. A proxy whose
 * request got blocked is set aside for its cool-down; `fetchParsed` does the same when the parser finds a captcha.
 */
export class UpstreamFetcher {
  private readonly agents = new Map<string, Dispatcher>();
  private readonly maxBytes: number;
  private readonly now: Clock;

  constructor(private readonly options: UpstreamFetcherOptions) {
    this.maxBytes = options.maxBytes ?? 10 * 1024 * 1024;
    this.now = options.now ?? Date.now;
  }

  /** A deadline on this fetcher's clock. */
  deadline(timeoutMs: number): Deadline {
    return new Deadline(timeoutMs, this.now);
  }

  async fetchPage(url: string, options: FetchPageOptions = {}): Promise<UpstreamPage> {
    const what = options.what ?? 'upstream page';
    const deadline = options.deadline ?? this.deadline(options.timeoutMs ?? 25_000);
    deadline.check(`${what} not fetched`);
    const host = safeHost(url);
    const proxy = this.options.proxies?.next(host);
    const signal = AbortSignal.timeout(deadline.remainingMs());
    let status: number;
    let finalUrl: string;
    let html: string;
    let contentType: string | null;
    try {
      const res = await this.options.fetch(url, {
        method: 'GET',
        headers: {
          ...browserHeaders({
            hl: options.hl,
            gl: options.gl,
            userAgent: this.options.userAgent,
            referer: options.referer,
          }),
          ...options.headers,
        },
        signal,
        redirect: 'follow',
        maxBytes: this.maxBytes,
        ...(proxy ? { dispatcher: this.dispatcherFor(proxy) } : {}),
      });
      status = res.status;
      finalUrl = res.url || url;
      contentType = res.headers.get('content-type');
      const length = Number(res.headers.get('content-length') ?? '0');
      if (length > this.maxBytes)
        throw new TrawlError('CONTENT_TOO_LARGE', `${what} from ${host} is larger than ${this.maxBytes} bytes`);
      html = await res.text();
    } catch (e) {
      throw this.mapFailure(e, signal, what, host, deadline);
    }
    if (BLOCK_STATUSES.has(status) || isCaptchaRedirect(finalUrl)) {
      if (proxy) this.options.proxies?.markBlocked(proxy, host); // for this host only: a target cannot bench it for all
      throw new TrawlError(
        'UPSTREAM_BLOCKED',
        `${host} blocked the request for the ${what} (HTTP ${status}${proxy ? ', proxy set aside' : ''})`,
      );
    }
    if (status === 404 || status === 410)
      throw new TrawlError('UPSTREAM_NOT_FOUND', `${host} has no such ${what} (HTTP ${status})`);
    if (status >= 400) throw new TrawlError('UPSTREAM_ERROR', `${host} answered HTTP ${status} for the ${what}`);
    return { url: finalUrl, status, html, contentType, ...(proxy ? { proxy } : {}) };
  }

  /**
   * Fetches and parses. When the parser throws UPSTREAM_BLOCKED (a captcha page served with 200), the proxy the page
   * came through is set aside like one that got a 429.
   */
  async fetchParsed<T>(
    url: string,
    options: FetchPageOptions,
    parse: (page: UpstreamPage) => T | Promise<T>,
  ): Promise<T> {
    const page = await this.fetchPage(url, options);
    try {
      return await this.parseObserved(url, page, parse);
    } catch (e) {
      if (e instanceof TrawlError && e.code === 'UPSTREAM_BLOCKED' && page.proxy)
        this.options.proxies?.markBlocked(page.proxy, safeHost(url));
      throw e;
    }
  }

  /**
   * Parses a page of `url`, however it was got (plain HTTP here, a browser render in UpstreamPageSource), and tells
   * the parse observer (the drift metrics) of the record or of a page the parser did not recognise.
   */
  async parseObserved<T>(url: string, page: UpstreamPage, parse: (page: UpstreamPage) => T | Promise<T>): Promise<T> {
    let record: T;
    try {
      record = await parse(page);
    } catch (e) {
      if (e instanceof TrawlError && e.code === 'PAGE_NOT_RECOGNISED')
        this.options.parseObserver?.unrecognised(this.upstreamLabel(url));
      throw e;
    }
    this.options.parseObserver?.parsed(record);
    return record;
  }

  /** Closes the proxy agents. */
  async close(): Promise<void> {
    const agents = [...this.agents.values()];
    this.agents.clear();
    await Promise.all(agents.map((a) => a.close()));
  }

  /** The page's host when it is a known upstream, else OTHER_UPSTREAM (bounded labels; no caller's host in them). */
  private upstreamLabel(url: string): string {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      return OTHER_UPSTREAM;
    }
    if (GOOGLE_HOST.test(u.hostname) || AMAZON_HOST.test(u.hostname)) return u.hostname.toLowerCase();
    return this.options.upstreamHosts?.includes(u.host) ? u.host : OTHER_UPSTREAM;
  }

  private dispatcherFor(proxy: string): Dispatcher {
    let agent = this.agents.get(proxy);
    if (!agent) {
      agent = this.options.proxyDispatcher ? this.options.proxyDispatcher(proxy) : new ProxyAgent(proxy);
      this.agents.set(proxy, agent);
    }
    return agent;
  }

  private mapFailure(e: unknown, signal: AbortSignal, what: string, host: string, deadline: Deadline): TrawlError {
    if (e instanceof TrawlError) return e;
    if (signal.aborted || isAbort(e)) {
      return new TrawlError(
        'UPSTREAM_TIMEOUT',
        `${what} from ${host} did not arrive within the ${deadline.timeoutMs} ms timeout`,
        { cause: e },
      );
    }
    const reason = e instanceof Error ? (e.cause instanceof Error ? e.cause.message : e.message) : String(e);
    return new TrawlError('UPSTREAM_ERROR', `could not fetch the ${what} from ${host}: ${reason}`, { cause: e });
  }
}

function isAbort(e: unknown): boolean {
  return e instanceof Error && (e.name === 'AbortError' || e.name === 'TimeoutError');
}

/** Google sends blocked clients to /sorry/index (its captcha page). */
function isCaptchaRedirect(url: string): boolean {
  try {
    return new URL(url).pathname.startsWith('/sorry/');
  } catch {
    return false;
  }
}

function safeHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'the upstream';
  }
}
