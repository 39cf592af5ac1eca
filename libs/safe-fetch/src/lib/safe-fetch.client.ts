import { pipeline, type Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { Agent, request, type Dispatcher } from 'undici';
import { defaultIdentities } from '@trawl/browser-identity';
import { TrawlError } from '@trawl/contracts';
import { EMPTY_ALLOW_LIST, type AllowList } from './address.policy.js';
import { checkUrl, proxyHostname, systemResolver, type CheckedUrl, type Resolver } from './check-url.guard.js';
import { decodeBody } from './decode-body.util.js';
import { guardedLookup } from './guarded-lookup.resolver.js';
import { toUpstreamError } from './upstream-error.mapper.js';

export const DEFAULT_MAX_REDIRECTS = 10;
export const DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024;
/** The one browser identity's user agent (`@trawl/browser-identity`: the real Chromium's version, never written here). */
export const DEFAULT_USER_AGENT = defaultIdentities().forLocale().userAgent;

export interface SafeFetchInit {
  method?: 'GET' | 'HEAD';
  headers?: Record<string, string>;
  /** Hosts or networks let through although not public (SSRF_ALLOW_HOSTS). */
  allow?: AllowList;
  /** DNS resolver, for the URL check and the connect-time check. */
  resolve?: Resolver;
  /** Deadline of the whole fetch including redirects and body, ms. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Largest accepted body, after decompression; a larger page fails with CONTENT_TOO_LARGE. */
  maxBodyBytes?: number;
  maxRedirects?: number;
  /**
   * An upstream proxy's dispatcher (undici `ProxyAgent`; PROXY_URLS). The proxy is trusted configuration: the
   * target URL and every redirect hop still pass the SSRF check before each request, and the proxy is asked for the
   * address that passed it (CONNECT `address:port`, or an absolute URI with the address), with `Host` and TLS SNI
   * set to the name, so a DNS answer that changes between the check and the proxy's own lookup (rebinding) is never
   * used. An allowlisted name (SSRF_ALLOW_HOSTS) goes to the proxy as a name.
   */
  dispatcher?: Dispatcher;
}

export interface SafeFetchResponse {
  status: number;
  /** The final URL after redirects. */
  url: string;
  /** Response headers, lower-case names (repeated ones joined with ", "); `content-encoding` already undone. */
  headers: Record<string, string>;
  /** The body, decompressed (gzip, x-gzip, deflate, br). */
  body: Buffer;
  /** URLs that answered with a redirect, in order. */
  redirects: string[];
  /** The body decoded as a browser would: BOM, Content-Type charset, `<meta>` prescan, else UTF-8 (`decodeBody`). */
  text(): string;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];
const agents = new WeakMap<Resolver, WeakMap<AllowList, Agent>>();

/** The undici Agent whose connections pass the SSRF check at connect time (one per allowlist and resolver). */
export function safeAgent(allow: AllowList = EMPTY_ALLOW_LIST, resolve: Resolver = systemResolver): Agent {
  let byAllow = agents.get(resolve);
  if (!byAllow) agents.set(resolve, (byAllow = new WeakMap()));
  let agent = byAllow.get(allow);
  if (!agent) {
    agent = new Agent({ connect: { lookup: guardedLookup(allow, resolve) }, keepAliveTimeout: 4000, connections: 16 });
    byAllow.set(allow, agent);
  }
  return agent;
}

/**
 * Trawl's one HTTP client for pages (scrape engines and upstream extractors alike). GETs a URL with SSRF
 * protection: the URL and every redirect hop are checked before any connection (manual redirects, at most
 * `maxRedirects`, credentials dropped across origins), and without a proxy the socket's resolved address is checked
 * again at connect time. The body is decompressed and capped (the cap counts decompressed bytes, so a compression
 * bomb stops at the cap) and the whole exchange is bounded by `timeoutMs`/`signal`. `text()` decodes as browsers do.
 * A refused host is URL_NOT_ALLOWED; a timeout is UPSTREAM_TIMEOUT; DNS and connection failures are UPSTREAM_ERROR;
 * a body over the cap is CONTENT_TOO_LARGE. A 4xx/5xx page is a normal response.
 */
export async function safeFetch(input: string, init: SafeFetchInit = {}): Promise<SafeFetchResponse> {
  const allow = init.allow ?? EMPTY_ALLOW_LIST;
  const resolve = init.resolve ?? systemResolver;
  const maxRedirects = init.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  const maxBody = init.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const signals = [init.signal, init.timeoutMs !== undefined ? AbortSignal.timeout(init.timeoutMs) : undefined].filter(
    (s): s is AbortSignal => s !== undefined,
  );
  const signal = signals.length > 0 ? AbortSignal.any(signals) : undefined;
  const dispatcher = init.dispatcher ?? safeAgent(allow, resolve);
  let headers = withDefaults(init.headers);
  let method = init.method ?? 'GET';
  const redirects: string[] = [];
  let current = input;

  for (;;) {
    const checked = await checkUrl(current, { allow, resolve });
    const { url } = checked;
    const sent = init.dispatcher ? pinnedToAddress(checked, headers) : { target: url, headers };
    let res: Dispatcher.ResponseData;
    try {
      signal?.throwIfAborted();
      res = await request(sent.target, { method, headers: sent.headers, signal, dispatcher });
    } catch (e) {
      throw toUpstreamError(e, url.host);
    }
    const location = headerValue(res.headers.location);
    if (REDIRECTS.has(res.statusCode) && location) {
      await res.body.dump().catch(() => undefined);
      if (redirects.length >= maxRedirects) {
        throw new TrawlError('UPSTREAM_ERROR', `more than ${maxRedirects} redirects from ${input}`);
      }
      redirects.push(url.href);
      const next = new URL(location, url);
      if (next.origin !== url.origin) headers = withoutCredentials(headers);
      if (res.statusCode === 303) method = 'GET';
      current = next.href;
      continue;
    }
    const flat = flattenHeaders(res.headers);
    const body = await readCapped(decompressed(res.body, flat['content-encoding'], url.host), maxBody, url.host);
    delete flat['content-encoding'];
    if (flat['content-length'] !== undefined) flat['content-length'] = String(body.length);
    return {
      status: res.statusCode,
      url: url.href,
      headers: flat,
      body,
      redirects,
      text: () => decodeBody(body, flat['content-type']),
    };
  }
}

/**
 * The request as sent through an upstream proxy: to the address the check passed, so the proxy cannot resolve the
 * name again (DNS rebinding), with `Host` set to the name (undici derives the TLS SNI from it, and checks the
 * certificate against it). A name allowlisted as such resolved to nothing here and goes as it is.
 */
function pinnedToAddress(
  checked: CheckedUrl,
  headers: Record<string, string>,
): { target: URL; headers: Record<string, string> } {
  const hostname = proxyHostname(checked);
  if (hostname === checked.url.hostname) return { target: checked.url, headers };
  const target = new URL(checked.url.href);
  target.hostname = hostname;
  return { target, headers: { ...headers, host: checked.url.host } };
}

/** The body with its content codings undone, as a stream (so the cap counts what the page really is). */
function decompressed(body: Readable, encoding: string | undefined, host: string): Readable {
  const codings = (encoding ?? '')
    .toLowerCase()
    .split(',')
    .map((c) => c.trim())
    .filter((c) => c !== '' && c !== 'identity')
    .reverse();
  let stream = body;
  for (const coding of codings) {
    const decoder =
      coding === 'gzip' || coding === 'x-gzip'
        ? createGunzip()
        : coding === 'deflate'
          ? createInflate()
          : coding === 'br'
            ? createBrotliDecompress()
            : undefined;
    if (!decoder) {
      body.destroy();
      throw new TrawlError(
        'UPSTREAM_ERROR',
        `${host} sent the page with an unknown content coding "${coding.slice(0, 40)}"`,
      );
    }
    stream = pipeline(stream, decoder, () => undefined) as Readable;
  }
  return stream;
}

async function readCapped(body: Readable, maxBytes: number, host: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      size += (chunk as Buffer).length;
      if (size > maxBytes) {
        body.destroy();
        throw new TrawlError('CONTENT_TOO_LARGE', `page from ${host} is larger than ${maxBytes} bytes`);
      }
      chunks.push(chunk as Buffer);
    }
  } catch (e) {
    if (isZlibError(e))
      throw new TrawlError('UPSTREAM_ERROR', `could not decompress the page from ${host}`, { cause: e });
    throw toUpstreamError(e, host);
  }
  return Buffer.concat(chunks);
}

function isZlibError(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException | undefined)?.code ?? '';
  return code.startsWith('Z_') || code.startsWith('ERR_BROTLI') || code === 'ERR__ERROR_FORMAT_PADDING_1';
}

function withDefaults(headers: Record<string, string> = {}): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) out[k.toLowerCase()] = v;
  out['user-agent'] ??= DEFAULT_USER_AGENT;
  out['accept'] ??= 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
  out['accept-encoding'] ??= 'gzip, deflate, br';
  return out;
}

function withoutCredentials(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([k]) => !CREDENTIAL_HEADERS.includes(k)));
}

function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

function flattenHeaders(headers: Dispatcher.ResponseData['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers))
    if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}
