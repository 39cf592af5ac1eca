import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { TrawlError } from '@trawl/contracts';

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * SSRF guard for webhook URLs: http(s) only, and every address the host resolves to must be public unicast, unless
 * the host name or a CIDR holding the address is in the allowlist (SSRF_ALLOW_HOSTS: tests, local demos). `check`
 * runs before a job is created and before each delivery; `lookup` runs again when the connection is made, so a name
 * that changes its answer in between (DNS rebinding) is still refused.
 */
export class WebhookUrlGuard {
  private readonly hosts = new Set<string>();
  private readonly cidrs: [ipaddr.IPv4 | ipaddr.IPv6, number][] = [];

  constructor(allow: string[] = []) {
    for (const entry of allow.map((a) => a.trim().toLowerCase()).filter(Boolean)) {
      if (entry.includes('/')) this.cidrs.push(ipaddr.parseCIDR(entry));
      else if (isIP(entry)) this.cidrs.push(ipaddr.parseCIDR(`${entry}/${isIP(entry) === 4 ? 32 : 128}`));
      else this.hosts.add(entry);
    }
  }

  /** Whether a connection to this address may be made. */
  isAllowedAddress(address: string): boolean {
    if (!ipaddr.isValid(address)) return false;
    let ip = ipaddr.parse(address);
    if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address();
    if (this.cidrs.some(([net, bits]) => net.kind() === ip.kind() && ip.match(net, bits))) return true;
    return ip.range() === 'unicast';
  }

  /** Throws URL_NOT_ALLOWED (field `webhook`) unless the URL may be called. */
  async check(url: string): Promise<void> {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw refuse(url, 'it is not a URL');
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw refuse(url, 'only http and https are allowed');
    const host = parsed.hostname.replace(/^\[|\]$/g, '').toLowerCase();
    if (this.hosts.has(host)) return;
    if (isIP(host)) {
      if (!this.isAllowedAddress(host)) throw refuse(url, `${host} is not a public address`);
      return;
    }
    const addresses = await new Promise<LookupAddress[]>((resolve, reject) =>
      dnsLookup(host, { all: true }, (err, found) => (err ? reject(err) : resolve(found))),
    ).catch(() => {
      throw refuse(url, `its host ${host} does not resolve`);
    });
    const bad = addresses.find((a) => !this.isAllowedAddress(a.address));
    if (bad) throw refuse(url, `its host ${host} resolves to ${bad.address}, which is not a public address`);
  }

  /** A `lookup` for the HTTP client's connections that refuses addresses `check` would refuse. */
  readonly lookup = (hostname: string, options: object, callback: LookupCallback): void => {
    const host = hostname.toLowerCase();
    dnsLookup(hostname, { ...(options as LookupAllOptions), all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const allowed = this.hosts.has(host) ? addresses : addresses.filter((a) => this.isAllowedAddress(a.address));
      if (allowed.length === 0) {
        const e: NodeJS.ErrnoException = new Error(`webhook host ${hostname} resolves only to addresses that are not public`);
        e.code = 'EURLNOTALLOWED';
        return callback(e, []);
      }
      if ((options as LookupAllOptions).all) return callback(null, allowed);
      return callback(null, allowed[0].address, allowed[0].family);
    });
  };
}

function refuse(url: string, why: string): TrawlError {
  return new TrawlError('URL_NOT_ALLOWED', `webhook ${url} may not be called: ${why}`, { field: 'webhook' });
}
