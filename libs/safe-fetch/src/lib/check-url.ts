import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';
import { TrawlError } from '@trawl/contracts';
import { EMPTY_ALLOW_LIST, isAddressAllowed, isHostAllowlisted, type AllowList } from './address-policy.js';

/** Resolves a host name to its addresses (injectable so tests never touch DNS). */
export type Resolver = (host: string) => Promise<string[]>;

/** The system resolver (getaddrinfo, as the connection itself would use). */
export const systemResolver: Resolver = async (host) => (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

export interface CheckUrlOptions {
  resolve?: Resolver;
  allow?: AllowList;
}

export interface CheckedUrl {
  url: URL;
  /** Host name without IPv6 brackets. */
  host: string;
  /** The addresses the host resolved to (empty when allowlisted by name). */
  addresses: string[];
}

/**
 * Decides whether a URL may be fetched: http(s) only, and every address its host resolves to must pass
 * `isAddressAllowed` (an allowlisted host name passes as is). Throws URL_NOT_ALLOWED naming the host, or
 * UPSTREAM_ERROR when the name does not resolve.
 */
export async function checkUrl(input: string | URL, options: CheckUrlOptions = {}): Promise<CheckedUrl> {
  const allow = options.allow ?? EMPTY_ALLOW_LIST;
  let url: URL;
  try {
    url = typeof input === 'string' ? new URL(input) : input;
  } catch {
    throw new TrawlError('URL_NOT_ALLOWED', `not a valid URL: ${String(input).slice(0, 200)}`, { field: 'url' });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TrawlError('URL_NOT_ALLOWED', `scheme ${url.protocol} is not allowed (http and https only)`, { field: 'url' });
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (isHostAllowlisted(host, allow)) return { url, host, addresses: [] };
  const addresses = ipaddr.isValid(host) ? [host] : await resolveHost(host, options.resolve ?? systemResolver);
  const refused = addresses.find((a) => !isAddressAllowed(a, allow));
  if (refused !== undefined || addresses.length === 0) {
    throw refusal(host, refused);
  }
  return { url, host, addresses };
}

/** The error for a refused host (also used by the connect-time check). */
export function refusal(host: string, address?: string): TrawlError {
  const where = address && address !== host ? ` (resolves to ${address})` : '';
  return new TrawlError('URL_NOT_ALLOWED', `host ${host}${where} is not allowed: private, loopback, link-local or reserved address`, {
    field: 'url',
  });
}

async function resolveHost(host: string, resolve: Resolver): Promise<string[]> {
  try {
    return await resolve(host);
  } catch (e) {
    throw new TrawlError('UPSTREAM_ERROR', `could not resolve host ${host}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, {
      cause: e,
    });
  }
}
