import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { TrawlError } from '@trawl/contracts';
import { checkUrl, parseAllowList, safeFetch, toUpstreamError, type AllowList } from '@trawl/safe-fetch';
import { request, type Dispatcher } from 'undici';
import type { FetchFn, FetchInit, FetchResponse } from './upstream-fetcher.js';

const MAX_REDIRECTS = 10;
const DEFAULT_MAX_BYTES = 10 * 1024 * 1024;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * The FetchFn the extractors use: the SSRF-guarded `safeFetch` of @trawl/safe-fetch (every hop checked, the socket's
 * address checked again at connect time; `allowHosts` is SSRF_ALLOW_HOSTS). Through a proxy (a dispatcher in the
 * init) the target URL and every redirect hop are still checked before the request; the proxy itself is trusted
 * configuration. Compressed bodies (gzip, br, deflate: we send a browser's Accept-Encoding) are decompressed.
 */
export function guardedFetch(allowHosts: string | readonly string[]): FetchFn {
  const allow = parseAllowList(allowHosts);
  return async (url, init) => {
    if (init.dispatcher) return viaProxy(url, init, allow, init.dispatcher);
    const res = await safeFetch(url, {
      method: init.method,
      headers: init.headers,
      signal: init.signal,
      allow,
      ...(init.maxBytes ? { maxBodyBytes: init.maxBytes } : {}),
    });
    return toResponse(res.status, res.url, res.headers, res.body, init.maxBytes);
  };
}

async function viaProxy(
  url: string,
  init: FetchInit,
  allow: AllowList,
  dispatcher: Dispatcher,
): Promise<FetchResponse> {
  let current = url;
  for (let hop = 0; ; hop++) {
    const checked = await checkUrl(current, { allow });
    let res: Dispatcher.ResponseData;
    try {
      res = await request(checked.url, { method: init.method, headers: init.headers, signal: init.signal, dispatcher });
    } catch (e) {
      throw toUpstreamError(e, checked.url.host);
    }
    const location = res.headers.location;
    if (REDIRECTS.has(res.statusCode) && typeof location === 'string') {
      await res.body.dump().catch(() => undefined);
      if (hop >= MAX_REDIRECTS)
        throw new TrawlError('UPSTREAM_ERROR', `more than ${MAX_REDIRECTS} redirects from ${url}`);
      current = new URL(location, checked.url).href;
      continue;
    }
    const body = await readCapped(res.body, init.maxBytes ?? DEFAULT_MAX_BYTES, checked.url.host);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(res.headers))
      if (v !== undefined) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
    return toResponse(res.statusCode, checked.url.href, headers, body, init.maxBytes);
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
        throw new TrawlError('UPSTREAM_ERROR', `page from ${host} is larger than ${maxBytes} bytes`, {
          retryable: false,
        });
      }
      chunks.push(chunk as Buffer);
    }
  } catch (e) {
    throw toUpstreamError(e, host);
  }
  return Buffer.concat(chunks);
}

function toResponse(
  status: number,
  url: string,
  headers: Record<string, string>,
  raw: Buffer,
  maxBytes?: number,
): FetchResponse {
  const body = decompress(raw, headers['content-encoding'], maxBytes ?? DEFAULT_MAX_BYTES, url);
  return {
    status,
    url,
    headers: {
      get: (name) =>
        name.toLowerCase() === 'content-length' ? String(body.length) : (headers[name.toLowerCase()] ?? null),
    },
    text: () => Promise.resolve(decode(body, headers['content-type'])),
  };
}

function decompress(body: Buffer, encoding: string | undefined, maxOutputLength: number, url: string): Buffer {
  const enc = (encoding ?? '').trim().toLowerCase();
  if (body.length === 0 || enc === '' || enc === 'identity') return body;
  try {
    if (enc === 'gzip' || enc === 'x-gzip') return gunzipSync(body, { maxOutputLength });
    if (enc === 'br') return brotliDecompressSync(body, { maxOutputLength });
    if (enc === 'deflate') return inflateSync(body, { maxOutputLength });
  } catch (e) {
    throw new TrawlError('UPSTREAM_ERROR', `could not decompress the ${enc} page from ${new URL(url).host}`, {
      cause: e,
    });
  }
  return body;
}

function decode(body: Buffer, contentType: string | undefined): string {
  const charset = /charset=["']?([\w-]+)/i.exec(contentType ?? '')?.[1];
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(body);
  } catch {
    return body.toString('utf8');
  }
}
