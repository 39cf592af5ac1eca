import ipaddr from 'ipaddr.js';

/**
 * Hosts and networks the SSRF guard lets through although their addresses are not public (tests, local demos):
 * `SSRF_ALLOW_HOSTS`, e.g. `localhost,127.0.0.1,10.1.0.0/16`.
 */
export interface AllowList {
  /** Lower-case host names allowed by name (whatever they resolve to). */
  readonly hosts: ReadonlySet<string>;
  /** Networks allowed by address. A plain IP entry is a /32 or /128. */
  readonly cidrs: readonly [ipaddr.IPv4 | ipaddr.IPv6, number][];
}

export const EMPTY_ALLOW_LIST: AllowList = { hosts: new Set(), cidrs: [] };

/** Builds an AllowList from comma-separated text or a list of entries (host names, IPs, CIDRs). */
export function parseAllowList(entries: string | readonly string[]): AllowList {
  const list = typeof entries === 'string' ? entries.split(',') : entries;
  const hosts = new Set<string>();
  const cidrs: [ipaddr.IPv4 | ipaddr.IPv6, number][] = [];
  for (const raw of list) {
    const entry = raw.trim().toLowerCase().replace(/^\[(.*)\]$/, '$1');
    if (!entry) continue;
    if (entry.includes('/')) {
      cidrs.push(normaliseRange(ipaddr.parseCIDR(entry)));
    } else if (ipaddr.isValid(entry)) {
      const addr = ipaddr.process(entry);
      cidrs.push([addr, addr.kind() === 'ipv4' ? 32 : 128]);
    } else {
      hosts.add(entry);
    }
  }
  return { hosts, cidrs };
}

function normaliseRange([addr, bits]: [ipaddr.IPv4 | ipaddr.IPv6, number]): [ipaddr.IPv4 | ipaddr.IPv6, number] {
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96) {
    return [(addr as ipaddr.IPv6).toIPv4Address(), bits - 96];
  }
  return [addr, bits];
}

/** Whether `host` (a URL hostname) is allowlisted by name. */
export function isHostAllowlisted(host: string, allow: AllowList): boolean {
  return allow.hosts.has(host.toLowerCase().replace(/^\[(.*)\]$/, '$1').replace(/\.$/, ''));
}

/**
 * The SSRF decision for one resolved address: only public unicast addresses pass, unless the allowlist names the
 * address's network. Refused: private (10/8, 172.16/12, 192.168/16), loopback (127/8, ::1), link-local
 * (169.254/16 with the cloud metadata address, fe80::/10), unique-local fc00::/7, 0.0.0.0/8 and ::, CGNAT
 * 100.64/10, multicast, broadcast, reserved and documentation ranges, and IPv6 forms that embed an IPv4 address
 * (IPv4-mapped are judged as the IPv4 they carry; 6to4, Teredo, NAT64 are refused). Anything unparsable is refused.
 */
export function isAddressAllowed(ip: string, allow: AllowList = EMPTY_ALLOW_LIST): boolean {
  const bare = ip.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');
  if (!ipaddr.isValid(bare)) return false;
  const addr = ipaddr.process(bare); // IPv4-mapped IPv6 becomes the IPv4 it carries
  for (const [net, bits] of allow.cidrs) {
    if (net.kind() === addr.kind() && addr.match(net, bits)) return true;
  }
  return addr.range() === 'unicast';
}
