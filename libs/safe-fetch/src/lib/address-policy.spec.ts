import { describe, expect, it } from '@jest/globals';
import { isAddressAllowed, isHostAllowlisted, parseAllowList } from './address-policy.js';

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

  it.each([['8.8.8.8'], ['93.184.216.34'], ['172.32.0.1'], ['100.128.0.1'], ['2606:4700:4700::1111'], ['::ffff:8.8.8.8']])(
    'allows the public address %s',
    (ip) => {
      expect(isAddressAllowed(ip)).toBe(true);
    },
  );

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

describe('parseAllowList', () => {
  it('separates host names from addresses and networks', () => {
    const allow = parseAllowList(['Localhost', ' site.test ', '', '192.168.0.0/24']);
    expect(isHostAllowlisted('localhost', allow)).toBe(true);
    expect(isHostAllowlisted('SITE.test.', allow)).toBe(true);
    expect(isHostAllowlisted('other.test', allow)).toBe(false);
    expect(allow.cidrs).toHaveLength(1);
  });
});
