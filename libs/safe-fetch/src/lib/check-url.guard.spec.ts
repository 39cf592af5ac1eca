import { describe, expect, it } from '@jest/globals';
import { TrawlError } from '@trawl/contracts';
import { parseAllowList } from './address.policy.js';
import { checkUrl, type Resolver } from './check-url.guard.js';

/** A stubbed DNS: no test here resolves or connects to anything real. */
function stubResolver(table: Record<string, string[]>): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const fn = async (host: string) => {
    calls.push(host);
    const found = table[host];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return found;
  };
  return Object.assign(fn, { calls });
}

const dns = stubResolver({
  'public.test': ['93.184.216.34'],
  'intranet.test': ['10.0.0.7'],
  'metadata.test': ['169.254.169.254'],
  'linklocal.test': ['169.254.10.20'],
  'mixed.test': ['93.184.216.34', '127.0.0.1'],
  'v6local.test': ['fe80::1'],
});

async function refusal(url: string, allow = parseAllowList('')): Promise<TrawlError> {
  const err = await checkUrl(url, { resolve: dns, allow }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(TrawlError);
  return err as TrawlError;
}

/** For a check that should have refused. */
function refusedInstead(): TrawlError {
  throw new Error('the URL was allowed');
}

describe('checkUrl refusals name the host and the range, not the resolved address', () => {
  const internal = stubResolver({
    'svc.test': ['10.96.0.10'],
    'azure.test': ['168.63.129.16'],
    'compat.test': ['::7f00:1'],
    'metadata.google.internal': ['93.184.216.34'],
  });

  it.each([
    ['http://svc.test/', 'svc.test', 'resolves to an address in the private range', '10.96.0.10'],
    ['http://azure.test/', 'azure.test', 'resolves to an address in the cloud metadata range', '168.63.129.16'],
    [
      'http://compat.test/',
      'compat.test',
      'resolves to an address in the ipv4Compatible (embeds an IPv4 loopback address) range',
      '7f00',
    ],
  ])('%s', async (url, host, phrase, hidden) => {
    const err = await checkUrl(url, { resolve: internal }).then(refusedInstead, (e: unknown) => e as TrawlError);
    expect(err).toBeInstanceOf(TrawlError);
    expect(err.code).toBe('URL_NOT_ALLOWED');
    expect(err.message).toContain(host);
    expect(err.message).toContain(phrase);
    expect(err.message).not.toContain(hidden);
  });

  it('refuses [::7f00:1] and 168.63.129.16 as literals', async () => {
    for (const url of [
      'http://[::7f00:1]/',
      'http://168.63.129.16/machine?comp=goalstate',
      'http://100.100.100.200/latest/meta-data/',
    ]) {
      const err = await checkUrl(url, { resolve: internal }).then(refusedInstead, (e: unknown) => e as TrawlError);
      expect(err).toBeInstanceOf(TrawlError);
      expect(err.code).toBe('URL_NOT_ALLOWED');
    }
  });

  it('refuses metadata.google.internal by name before resolving it, even when allowlisted', async () => {
    internal.calls.length = 0;
    const err = await checkUrl('http://metadata.google.internal/computeMetadata/v1/', {
      resolve: internal,
      allow: parseAllowList('metadata.google.internal'),
    }).then(refusedInstead, (e: unknown) => e as TrawlError);
    expect(err.message).toContain('names a cloud metadata service');
    expect(internal.calls).toEqual([]);
  });
});

describe('checkUrl with a stubbed resolver', () => {
  it('allows a host that resolves to a public address', async () => {
    const checked = await checkUrl('https://public.test/page', { resolve: dns });
    expect(checked.addresses).toEqual(['93.184.216.34']);
  });

  it.each([
    ['http://intranet.test/', 'intranet.test'],
    ['http://metadata.test/latest/meta-data/', 'metadata.test'],
    ['http://linklocal.test/', 'linklocal.test'],
    ['http://v6local.test/', 'v6local.test'],
    ['http://169.254.169.254/latest/meta-data/', '169.254.169.254'],
    ['http://[::1]:8080/', '::1'],
    ['http://[::ffff:169.254.169.254]/', '::ffff:a9fe:a9fe'],
    ['http://2130706433/', '127.0.0.1'],
    ['http://0x7f.1/', '127.0.0.1'],
  ])('refuses %s as URL_NOT_ALLOWED naming the host', async (url, host) => {
    const err = await refusal(url);
    expect(err.code).toBe('URL_NOT_ALLOWED');
    expect(err.message).toContain(host);
  });

  it('refuses a host when any of its addresses is private', async () => {
    expect((await refusal('http://mixed.test/')).code).toBe('URL_NOT_ALLOWED');
  });

  it('refuses schemes other than http and https', async () => {
    expect((await refusal('file:///etc/passwd')).code).toBe('URL_NOT_ALLOWED');
  });

  it('lets an allowlisted host name or network through', async () => {
    await expect(
      checkUrl('http://intranet.test/', { resolve: dns, allow: parseAllowList('intranet.test') }),
    ).resolves.toMatchObject({
      host: 'intranet.test',
    });
    await expect(
      checkUrl('http://intranet.test/', { resolve: dns, allow: parseAllowList('10.0.0.0/8') }),
    ).resolves.toMatchObject({
      addresses: ['10.0.0.7'],
    });
  });

  it('reports a host that does not resolve as UPSTREAM_ERROR', async () => {
    expect((await refusal('http://missing.test/')).code).toBe('UPSTREAM_ERROR');
  });
});
