import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';
import { TrawlError } from '@trawl/contracts';
import {
  addressRefusal,
  EMPTY_ALLOW_LIST,
  isHostAllowlisted,
  isMetadataHost,
  type AllowList,
} from './address.policy.js';

/** Resolves a host name to its addresses (injectable so tests never touch DNS). */
export type Resolver = (host: string) => Promise<string[]>;

/** The system resolver (getaddrinfo, as the connection itself would use). */
export const systemResolver: Resolver = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

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
 * Decides whether a URL may be fetched: http(s) only, not a metadata service by name (METADATA_HOSTS, refused even
 * when allowlisted), and every address its host resolves to must pass `addressRefusal` (an allowlisted host name
 * passes as is). Throws URL_NOT_ALLOWED naming the host: for a literal address with its class, for a name only "has
 * no public address", the same whether it resolved to an internal address or to none (DNS said no such name), so
 * errors neither tell an internal name's range nor whether it exists. UPSTREAM_ERROR when DNS itself fails.
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
    throw new TrawlError('URL_NOT_ALLOWED', `scheme ${url.protocol} is not allowed (http and https only)`, {
      field: 'url',
    });
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (isMetadataHost(host)) throw refusalFor(host, 'names a cloud metadata service');
  if (isHostAllowlisted(host, allow)) return { url, host, addresses: [] };
  if (ipaddr.isValid(host)) {
    const why = addressRefusal(host, allow);
    if (why !== undefined) throw refusalFor(host, literalPhrase(why));
    return { url, host, addresses: [host] };
  }
  const addresses = await resolveHost(host, options.resolve ?? systemResolver);
  if (addresses.length === 0 || addresses.some((a) => addressRefusal(a, allow) !== undefined))
    throw refusalFor(host, NO_PUBLIC_ADDRESS);
  return { url, host, addresses };
}

/**
 * What a refused name is told, whatever it resolved to or whether it resolved at all: no range, no address, so a
 * caller cannot map the cluster's names (which exist, and in which network) through our errors.
 */
const NO_PUBLIC_ADDRESS = 'has no public address';

/** DNS answers meaning "no such name" (not a failure of DNS itself): refused like an internal name. */
const NO_SUCH_NAME = new Set(['ENOTFOUND', 'ENODATA', 'EAI_NONAME', 'EAI_NODATA']);

/**
 * The host to name to an upstream proxy for a checked URL: the first address the check passed (IPv6 in brackets),
 * so the proxy connects where the check looked instead of resolving the name again (DNS rebinding); the URL's own
 * host name when the check resolved nothing (a name allowlisted as such, trusted configuration).
 */
export function proxyHostname(checked: CheckedUrl): string {
  const address = checked.addresses[0];
  if (address === undefined || address === checked.host) return checked.url.hostname;
  return ipaddr.parse(address).kind() === 'ipv6' ? `[${address}]` : address;
}

/**
 * The error for a refused host (also used by the connect-time check): a literal address is told its class (the
 * caller wrote it), a name only that it has no public address; never a resolved address or its range.
 */
export function refusal(host: string, address?: string, allow: AllowList = EMPTY_ALLOW_LIST): TrawlError {
  const bareHost = host.replace(/^\[(.*)\]$/, '$1');
  if (address === undefined || address !== bareHost) return refusalFor(bareHost, NO_PUBLIC_ADDRESS);
  return refusalFor(bareHost, literalPhrase(addressRefusal(address, allow) ?? 'refused'));
}

function literalPhrase(why: string): string {
  return `is an address in the ${why} range`;
}

function refusalFor(host: string, phrase: string): TrawlError {
  return new TrawlError(
    'URL_NOT_ALLOWED',
    `host ${host} is not allowed: it ${phrase} (only public addresses are fetched)`,
    {
      field: 'url',
    },
  );
}

async function resolveHost(host: string, resolve: Resolver): Promise<string[]> {
  try {
    return await resolve(host);
  } catch (e) {
    if (NO_SUCH_NAME.has((e as NodeJS.ErrnoException).code ?? '')) throw refusalFor(host, NO_PUBLIC_ADDRESS);
    throw new TrawlError(
      'UPSTREAM_ERROR',
      `could not resolve host ${host}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      {
        cause: e,
      },
    );
  }
}
