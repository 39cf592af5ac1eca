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

describe('checkUrl refusals of a name tell neither its range nor whether it exists', () => {
  const internal = stubResolver({
    'svc.test': ['10.96.0.10'],
    'azure.test': ['168.63.129.16'],
    'compat.test': ['::7f00:1'],
    'metadata.google.internal': ['93.184.216.34'],
  });

  it.each([
    ['http://svc.test/', 'svc.test', ['10.96.0.10', 'private']],
    ['http://azure.test/', 'azure.test', ['168.63.129.16', 'metadata']],
    ['http://compat.test/', 'compat.test', ['7f00', 'ipv4Compatible', 'loopback']],
    ['http://absent.test/', 'absent.test', ['ENOTFOUND', 'resolve']],
  ])('%s', async (url, host, hidden) => {
    const err = await checkUrl(url, { resolve: internal }).then(refusedInstead, (e: unknown) => e as TrawlError);
    expect(err).toBeInstanceOf(TrawlError);
    expect(err.code).toBe('URL_NOT_ALLOWED');
    // The same words for an internal name and for one that does not exist: only the host differs.
    expect(err.message).toBe(
      `host ${host} is not allowed: it has no public address (only public addresses are fetched)`,
    );
    for (const word of hidden) expect(err.message).not.toContain(word);
  });

  it('names the range of a literal address (the caller wrote it)', async () => {
    const err = await checkUrl('http://10.0.0.1/', { resolve: internal }).then(
      refusedInstead,
      (e: unknown) => e as TrawlError,
    );
    expect(err.message).toContain('is an address in the private range');
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

  it('refuses a host that does not exist as it refuses an internal one; a failing DNS is UPSTREAM_ERROR', async () => {
    const missing = await refusal('http://missing.test/');
    const internal = await refusal('http://intranet.test/');
    expect(missing.code).toBe('URL_NOT_ALLOWED');
    expect(missing.message.replace('missing.test', 'H')).toBe(internal.message.replace('intranet.test', 'H'));
    const failing: Resolver = async () => {
      throw Object.assign(new Error('getaddrinfo EAI_AGAIN'), { code: 'EAI_AGAIN' });
    };
    const err = await checkUrl('http://any.test/', { resolve: failing }).then(
      refusedInstead,
      (e: unknown) => e as TrawlError,
    );
    expect(err.code).toBe('UPSTREAM_ERROR');
  });
});
