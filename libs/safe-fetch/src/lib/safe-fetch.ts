import { Agent, request, type Dispatcher } from 'undici';
import { defaultIdentities } from '@trawl/browser-identity';
import { TrawlError } from '@trawl/contracts';
import { EMPTY_ALLOW_LIST, type AllowList } from './address-policy.js';
import { checkUrl, systemResolver, type Resolver } from './check-url.js';
import { guardedLookup } from './guarded-lookup.js';
import { toUpstreamError } from './upstream-error.js';

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
  /** Largest accepted body; a larger page fails with UPSTREAM_ERROR. */
  maxBodyBytes?: number;
  maxRedirects?: number;
}

export interface SafeFetchResponse {
  status: number;
  /** The final URL after redirects. */
  url: string;
  /** Response headers, lower-case names (repeated ones joined with ", "). */
  headers: Record<string, string>;
  body: Buffer;
  /** URLs that answered with a redirect, in order. */
  redirects: string[];
  /** The body decoded with the charset of its content type (UTF-8 otherwise). */
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
 * GETs a URL with SSRF protection: the URL and every redirect hop are checked before any connection (manual
 * redirects, at most `maxRedirects`), and the socket's resolved address is checked again at connect time. The body
 * is capped and the whole exchange bounded by `timeoutMs`/`signal`. A refused host is URL_NOT_ALLOWED; a timeout is
 * UPSTREAM_TIMEOUT; DNS and connection failures are UPSTREAM_ERROR. A 4xx/5xx page is a normal response.
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
  const dispatcher = safeAgent(allow, resolve);
  let headers = withDefaults(init.headers);
  let method = init.method ?? 'GET';
  const redirects: string[] = [];
  let current = input;

  for (;;) {
    const { url } = await checkUrl(current, { allow, resolve });
    let res: Dispatcher.ResponseData;
    try {
      signal?.throwIfAborted();
      res = await request(url, { method, headers, signal, dispatcher });
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
    const body = await readCapped(res.body, maxBody, url.host);
    const flat = flattenHeaders(res.headers);
    return {
      status: res.statusCode,
      url: url.href,
      headers: flat,
      body,
      redirects,
      text: () => decode(body, flat['content-type']),
    };
  }
}

async function readCapped(body: Dispatcher.ResponseData['body'], maxBytes: number, host: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      size += (chunk as Buffer).length;
      if (size > maxBytes) {
        body.destroy();
        throw new TrawlError('UPSTREAM_ERROR', `page from ${host} is larger than ${maxBytes} bytes`, { retryable: false });
      }
      chunks.push(chunk as Buffer);
    }
  } catch (e) {
    throw toUpstreamError(e, host);
  }
  return Buffer.concat(chunks);
}

function withDefaults(headers: Record<string, string> = {}): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) out[k.toLowerCase()] = v;
  out['user-agent'] ??= DEFAULT_USER_AGENT;
  out['accept'] ??= 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
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
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

function decode(body: Buffer, contentType: string | undefined): string {
  const charset = /charset=["']?([\w-]+)/i.exec(contentType ?? '')?.[1];
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(body);
  } catch {
    return body.toString('utf8');
  }
}
