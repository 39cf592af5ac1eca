import { describe, expect, it } from '@jest/globals';
import {
  addressRefusal,
  isAddressAllowed,
  isHostAllowlisted,
  isMetadataHost,
  METADATA_ADDRESSES,
  parseAllowList,
} from './address.policy.js';

describe('isAddressAllowed', () => {
  it.each([
    ['10.0.0.1'],
    ['172.16.5.4'],
    ['172.31.255.255'],
    ['192.168.1.1'],
    ['127.0.0.1'],
    ['127.8.9.10'],
    ['::1'],
    ['169.254.169.254'],
    ['169.254.0.1'],
    ['fe80::1'],
    ['fc00::1'],
    ['fd12:3456::1'],
    ['0.0.0.0'],
    ['0.1.2.3'],
    ['::'],
    ['100.64.0.1'],
    ['100.127.255.254'],
    ['224.0.0.1'],
    ['ff02::1'],
    ['255.255.255.255'],
    ['240.0.0.1'],
    ['192.0.2.10'],
    ['::ffff:127.0.0.1'],
    ['::ffff:a9fe:a9fe'],
    ['::ffff:10.0.0.1'],
    ['2002:a00:1::'],
    ['64:ff9b::a9fe:a9fe'],
    ['not-an-ip'],
  ])('refuses the non-public address %s', (ip) => {
    expect(isAddressAllowed(ip)).toBe(false);
  });

  it.each([
    ['8.8.8.8'],
    ['93.184.216.34'],
    ['172.32.0.1'],
    ['100.128.0.1'],
    ['2606:4700:4700::1111'],
    ['::ffff:8.8.8.8'],
  ])('allows the public address %s', (ip) => {
    expect(isAddressAllowed(ip)).toBe(true);
  });

  it('lets allowlisted addresses and networks through, and nothing beyond them', () => {
    const allow = parseAllowList('127.0.0.1, 10.1.0.0/16, ::1');
    expect(isAddressAllowed('127.0.0.1', allow)).toBe(true);
    expect(isAddressAllowed('::ffff:127.0.0.1', allow)).toBe(true);
    expect(isAddressAllowed('10.1.200.3', allow)).toBe(true);
    expect(isAddressAllowed('::1', allow)).toBe(true);
    expect(isAddressAllowed('127.0.0.2', allow)).toBe(false);
    expect(isAddressAllowed('10.2.0.1', allow)).toBe(false);
    expect(isAddressAllowed('169.254.169.254', allow)).toBe(false);
  });
});

describe('addressRefusal names the special-purpose range, never the address', () => {
  it.each([
    ['10.0.0.1', 'private'],
    ['127.0.0.1', 'loopback'],
    ['169.254.10.20', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['192.0.2.10', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['0.0.0.0', 'unspecified'],
    ['192.31.196.1', 'as112'],
    ['192.52.193.1', 'amt'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'linkLocal'],
    ['fd12:3456::1', 'uniqueLocal'],
    ['ff02::1', 'multicast'],
    ['100::1', 'discard'],
    ['2001:db8::1', 'reserved'],
    ['2001:2::1', 'benchmarking'],
    ['fec0::1', 'deprecatedSiteLocal'],
    ['5f00::1', 'segmentRouting'],
    ['::ffff:10.0.0.1', 'ipv4Mapped private'],
    ['::7f00:1', 'ipv4Compatible (embeds an IPv4 loopback address)'],
    ['::a00:1', 'ipv4Compatible (embeds an IPv4 private address)'],
    ['::808:808', 'ipv4Compatible (embeds an IPv4 public address)'],
    ['2002:a00:1::', '6to4 (embeds an IPv4 private address)'],
    ['2002:808:808::', '6to4 (embeds an IPv4 public address)'],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'teredo (embeds an IPv4 loopback address)'],
    ['64:ff9b::a00:1', 'rfc6052 (embeds an IPv4 private address)'],
    ['64:ff9b:1::a9fe:a9fe', 'rfc6052 (embeds an IPv4 cloud metadata address)'],
    ['::ffff:0:7f00:1', 'rfc6145 (embeds an IPv4 loopback address)'],
  ])('%s is refused as %s', (ip, range) => {
    expect(addressRefusal(ip)).toBe(range);
    expect(isAddressAllowed(ip)).toBe(false);
  });

  it.each(METADATA_ADDRESSES.map((a) => [a]))(
    'refuses the cloud metadata address %s, even when its network is allowlisted',
    (ip) => {
      const allow = parseAllowList('169.254.0.0/16, 168.63.0.0/16, 100.64.0.0/10, 192.0.0.0/24, fd00::/8');
      expect(addressRefusal(ip, allow)).toBe('cloud metadata');
    },
  );

  it('refuses 168.63.129.16 (Azure wire server) although it is a public address, and the IPv4-mapped metadata address', () => {
    expect(isAddressAllowed('168.63.129.15')).toBe(true);
    expect(addressRefusal('168.63.129.16')).toBe('cloud metadata');
    expect(addressRefusal('::ffff:169.254.169.254')).toBe('cloud metadata (IPv4-mapped)');
    expect(addressRefusal('[fd00:ec2::254]')).toBe('cloud metadata');
  });

  it('never puts the address in the reason', () => {
    for (const ip of ['10.1.2.3', '::7f00:1', '2002:a00:1::', '169.254.169.254']) {
      expect(addressRefusal(ip)).not.toContain(ip);
    }
  });

  it('knows metadata services by name', () => {
    expect(isMetadataHost('metadata.google.internal')).toBe(true);
    expect(isMetadataHost('METADATA.google.internal.')).toBe(true);
    expect(isMetadataHost('google.internal')).toBe(false);
  });
});

describe('parseAllowList', () => {
  it('separates host names from addresses and networks', () => {
    const allow = parseAllowList(['Localhost', ' site.test ', '', '192.168.0.0/24']);
    expect(isHostAllowlisted('localhost', allow)).toBe(true);
    expect(isHostAllowlisted('SITE.test.', allow)).toBe(true);
    expect(isHostAllowlisted('other.test', allow)).toBe(false);
    expect(allow.cidrs).toHaveLength(1);
  });
});
