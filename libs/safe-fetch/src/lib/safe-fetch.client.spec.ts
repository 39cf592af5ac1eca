import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import iconv from 'iconv-lite';
import { TrawlError } from '@trawl/contracts';
import { startLoopbackHttp, type LoopbackServer } from '@trawl/testing';
import { parseAllowList } from './address.policy.js';
import type { Resolver } from './check-url.guard.js';
import { safeFetch } from './safe-fetch.client.js';

// Integration against a real server on 127.0.0.1 (the only address these tests ever connect to).
describe('safeFetch against a loopback server', () => {
  let site: LoopbackServer;
  const loopback = parseAllowList('127.0.0.1');

  beforeAll(async () => {
    site = await startLoopbackHttp((req, res) => {
      if (req.url === '/to-metadata') {
        res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
      } else if (req.url === '/to-metadata-name') {
        res.writeHead(301, { location: 'http://metadata.test/latest/meta-data/' }).end();
      } else if (req.url === '/hop') {
        res.writeHead(302, { location: '/page' }).end();
      } else if (req.url === '/loop') {
        res.writeHead(302, { location: '/loop' }).end();
      } else if (req.url === '/big') {
        res.writeHead(200, { 'content-type': 'text/plain' }).end('x'.repeat(5000));
      } else if (req.url === '/gzip') {
        res
          .writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' })
          .end(gzipSync('<p>zipped ü</p>'));
      } else if (req.url === '/bomb') {
        res
          .writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' })
          .end(gzipSync(Buffer.alloc(5_000_000)));
      } else if (req.url === '/latin1') {
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(iconv.encode('<meta charset="windows-1252"><p>café</p>', 'windows-1252'));
      } else if (req.url === '/missing') {
        res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>gone</h1>');
      } else {
        res
          .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
          .end(`<p>hello ${req.headers['x-probe'] ?? ''}</p>`);
      }
    });
  });

  afterAll(async () => {
    await site?.close();
  });

  it('refuses a loopback server without an allowlist, before connecting', async () => {
    const before = site.requests.length;
    const err = await safeFetch(`${site.url}/page`).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TrawlError);
    expect((err as TrawlError).code).toBe('URL_NOT_ALLOWED');
    expect((err as TrawlError).message).toContain('127.0.0.1');
    expect(site.requests.length).toBe(before);
  });

  it('reaches the loopback server when it is allowlisted, sending the given headers', async () => {
    const res = await safeFetch(`${site.url}/page`, { allow: loopback, headers: { 'X-Probe': 'p1' } });
    expect(res.status).toBe(200);
    expect(res.text()).toBe('<p>hello p1</p>');
  });

  it('follows redirects within the allowed hosts and reports the final URL', async () => {
    const res = await safeFetch(`${site.url}/hop`, { allow: loopback });
    expect(res.url).toBe(`${site.url}/page`);
    expect(res.redirects).toEqual([`${site.url}/hop`]);
  });

  it('refuses a redirect from an allowlisted server to 169.254.169.254', async () => {
    const err = await safeFetch(`${site.url}/to-metadata`, { allow: loopback }).catch((e: unknown) => e);
    expect((err as TrawlError).code).toBe('URL_NOT_ALLOWED');
    expect((err as TrawlError).message).toContain('169.254.169.254');
  });

  it('refuses a redirect to a name that resolves to the metadata address, without connecting to it', async () => {
    const asked: string[] = [];
    const resolve: Resolver = async (host) => {
      asked.push(host);
      return host === 'metadata.test' ? ['169.254.169.254'] : ['127.0.0.1'];
    };
    const err = await safeFetch(`${site.url}/to-metadata-name`, { allow: loopback, resolve }).catch((e: unknown) => e);
    expect((err as TrawlError).code).toBe('URL_NOT_ALLOWED');
    expect((err as TrawlError).message).toContain('metadata.test');
    expect(asked).toEqual(['metadata.test']);
  });

  it('refuses at connect time when the name resolves differently than at the check (DNS rebinding)', async () => {
    let calls = 0;
    const rebinding: Resolver = async () => (calls++ === 0 ? ['93.184.216.34'] : ['127.0.0.1']);
    const err = await safeFetch(`http://rebind.test:${site.port}/page`, { resolve: rebinding }).catch(
      (e: unknown) => e,
    );
    expect((err as TrawlError).code).toBe('URL_NOT_ALLOWED');
    expect(calls).toBe(2);
  });

  it('stops after the redirect limit', async () => {
    const err = await safeFetch(`${site.url}/loop`, { allow: loopback, maxRedirects: 3 }).catch((e: unknown) => e);
    expect((err as TrawlError).code).toBe('UPSTREAM_ERROR');
    expect((err as TrawlError).message).toContain('redirects');
  });

  it('refuses a body larger than the cap', async () => {
    const err = await safeFetch(`${site.url}/big`, { allow: loopback, maxBodyBytes: 1000 }).catch((e: unknown) => e);
    expect((err as TrawlError).code).toBe('CONTENT_TOO_LARGE');
    expect((err as TrawlError).message).toContain('larger than 1000 bytes');
  });

  it('decompresses a gzip body and counts the cap on the decompressed size (a compression bomb stops there)', async () => {
    const res = await safeFetch(`${site.url}/gzip`, { allow: loopback });
    expect(res.text()).toBe('<p>zipped ü</p>');
    expect(res.headers['content-encoding']).toBeUndefined();
    const err = await safeFetch(`${site.url}/bomb`, { allow: loopback, maxBodyBytes: 100_000 }).catch(
      (e: unknown) => e,
    );
    expect((err as TrawlError).code).toBe('CONTENT_TOO_LARGE');
  });

  it('decodes a page by its <meta charset> when the header names none', async () => {
    const res = await safeFetch(`${site.url}/latin1`, { allow: loopback });
    expect(res.text()).toContain('<p>café</p>');
  });

  it('returns a 404 page as a response with its status', async () => {
    const res = await safeFetch(`${site.url}/missing`, { allow: loopback });
    expect(res.status).toBe(404);
  });

  it('reports a closed port as UPSTREAM_ERROR', async () => {
    const err = await safeFetch('http://127.0.0.1:1/', { allow: loopback }).catch((e: unknown) => e);
    expect((err as TrawlError).code).toBe('UPSTREAM_ERROR');
  });

  it('reports an aborted fetch as UPSTREAM_TIMEOUT', async () => {
    const err = await safeFetch(`${site.url}/page`, { allow: loopback, signal: AbortSignal.abort() }).catch(
      (e: unknown) => e,
    );
    expect((err as TrawlError).code).toBe('UPSTREAM_TIMEOUT');
  });
});
