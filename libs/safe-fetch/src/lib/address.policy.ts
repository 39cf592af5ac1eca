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
    const entry = raw
      .trim()
      .toLowerCase()
      .replace(/^\[(.*)\]$/, '$1');
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
  return allow.hosts.has(
    host
      .toLowerCase()
      .replace(/^\[(.*)\]$/, '$1')
      .replace(/\.$/, ''),
  );
}

/**
 * Cloud instance-metadata and platform endpoints, refused whatever the allowlist says: AWS IMDS (169.254.169.254,
 * fd00:ec2::254), ECS task metadata (169.254.170.2), EKS Pod Identity (169.254.170.23, fd00:ec2::23), Azure wire
 * server (168.63.129.16, a public address) and IMDS, GCP (169.254.169.254, fd20:ce::254), Alibaba (100.100.100.200),
 * Oracle Cloud classic (192.0.0.192), AWS DNS (169.254.169.253) and time (169.254.169.123).
 */
export const METADATA_ADDRESSES: readonly string[] = [
  '169.254.169.254',
  '169.254.169.253',
  '169.254.169.123',
  '169.254.170.2',
  '169.254.170.23',
  '168.63.129.16',
  '100.100.100.200',
  '192.0.0.192',
  'fd00:ec2::254',
  'fd00:ec2::23',
  'fd20:ce::254',
];

/** Host names of metadata services, refused by name before any resolution (and whatever the allowlist says). */
export const METADATA_HOSTS: readonly string[] = [
  'metadata.google.internal',
  'metadata.goog',
  'metadata',
  'instance-data',
  'instance-data.ec2.internal',
  'metadata.azure.internal',
  'metadata.tencentyun.com',
  'metadata.platformequinix.com',
];

const METADATA = new Set(METADATA_ADDRESSES.map((a) => ipaddr.parse(a).toNormalizedString()));
const METADATA_NAMES = new Set(METADATA_HOSTS);

/** Whether `host` (a URL hostname) names a metadata service. */
export function isMetadataHost(host: string): boolean {
  return METADATA_NAMES.has(host.toLowerCase().replace(/\.$/, ''));
}

/** IPv6 ranges (by ipaddr.js's name) that carry an IPv4 address, and how to get it out. */
const EMBEDDED_V4: Record<string, (parts: number[]) => number[]> = {
  ipv4Mapped: (p) => v4(p[6] ?? 0, p[7] ?? 0),
  rfc6145: (p) => v4(p[6] ?? 0, p[7] ?? 0),
  rfc6052: (p) => v4(p[6] ?? 0, p[7] ?? 0),
  '6to4': (p) => v4(p[1] ?? 0, p[2] ?? 0),
  // Teredo: the client's IPv4 address, bit-inverted, in the last 32 bits.
  teredo: (p) => v4((p[6] ?? 0) ^ 0xffff, (p[7] ?? 0) ^ 0xffff),
};

function v4(high: number, low: number): number[] {
  return [high >> 8, high & 0xff, low >> 8, low & 0xff];
}

/**
 * Why one resolved address is refused, as a class name (never the address itself), or `undefined` when it may be
 * fetched. Only public unicast passes. Refused by ipaddr.js's range name: every special-purpose range of IPv4
 * (private, loopback, linkLocal, carrierGradeNat, reserved, multicast, broadcast, unspecified, as112, amt) and IPv6
 * (uniqueLocal, linkLocal, loopback, multicast, unspecified, discard, benchmarking, orchid, segmentRouting, reserved,
 * deprecatedSiteLocal…); the cloud metadata addresses (METADATA_ADDRESSES), even where the allowlist covers them; and
 * IPv6 forms that embed an IPv4 address: IPv4-mapped is judged as the IPv4 it carries, IPv4-compatible (`::a.b.c.d`,
 * e.g. `[::7f00:1]`), 6to4, Teredo, NAT64 (rfc6052, 64:ff9b:1::/48) and rfc6145 are refused, named with what they
 * embed. The allowlist (`SSRF_ALLOW_HOSTS`) lets a listed network through. Anything unparsable is refused.
 */
export function addressRefusal(ip: string, allow: AllowList = EMPTY_ALLOW_LIST): string | undefined {
  const bare = ip.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');
  if (!ipaddr.isValid(bare)) return 'not an IP address';
  const parsed = ipaddr.parse(bare);
  if (METADATA.has(parsed.toNormalizedString())) return 'cloud metadata';
  let addr: ipaddr.IPv4 | ipaddr.IPv6 = parsed;
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    addr = (parsed as ipaddr.IPv6).toIPv4Address();
    if (METADATA.has(addr.toNormalizedString())) return 'cloud metadata (IPv4-mapped)';
  }
  for (const [net, bits] of allow.cidrs) {
    if (net.kind() === addr.kind() && addr.match(net, bits)) return undefined;
  }
  if (addr.kind() === 'ipv4') {
    const range = addr.range();
    return range === 'unicast' ? undefined : parsed === addr ? range : `ipv4Mapped ${range}`;
  }
  const v6 = addr as ipaddr.IPv6;
  const parts = v6.parts;
  let range: string = v6.range();
  if (range === 'unicast' && parts.slice(0, 6).every((x) => x === 0)) range = 'ipv4Compatible';
  if (range === 'unicast') return undefined;
  const embed = EMBEDDED_V4[range] ?? (range === 'ipv4Compatible' ? EMBEDDED_V4.ipv4Mapped : undefined);
  if (!embed) return range;
  const inner = new ipaddr.IPv4(embed(parts));
  const innerRange = METADATA.has(inner.toNormalizedString()) ? 'cloud metadata' : inner.range();
  return `${range} (embeds an IPv4 ${innerRange === 'unicast' ? 'public' : innerRange} address)`;
}

/** Whether one resolved address may be fetched: `addressRefusal` found nothing against it. */
export function isAddressAllowed(ip: string, allow: AllowList = EMPTY_ALLOW_LIST): boolean {
  return addressRefusal(ip, allow) === undefined;
}
