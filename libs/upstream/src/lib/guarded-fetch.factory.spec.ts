import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startLoopbackHttp, type LoopbackServer } from '@trawl/testing';
import { ProxyAgent } from 'undici';
import { guardedFetch } from './guarded-fetch.factory.js';
import { ProxyRotation } from '@trawl/safe-fetch';
import { UpstreamFetcher } from './upstream-fetcher.service.js';

/** A CONNECT proxy on loopback that counts the tunnels it opened. */
async function startConnectProxy(): Promise<{ url: string; tunnels: string[]; close(): Promise<void> }> {
  const tunnels: string[] = [];
  const server: Server = createServer((_req, res) => {
    res.statusCode = 405;
    res.end();
  });
  server.on('connect', (req, socket, head) => {
    tunnels.push(req.url ?? '');
    const [host, port] = (req.url ?? '').split(':');
    const upstream = connect(Number(port), host, () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    tunnels,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('guardedFetch (safe-fetch underneath)', () => {
  let upstream: LoopbackServer;
  let proxy: Awaited<ReturnType<typeof startConnectProxy>>;

  beforeAll(async () => {
    upstream = await startLoopbackHttp((req, res) => {
      if (req.url === '/gzip') {
        res.setHeader('content-type', 'text/html; charset=utf-8');
        res.setHeader('content-encoding', 'gzip');
        res.end(gzipSync('<html>zipped ünïcode</html>'));
      } else if (req.url === '/hop') {
        res.statusCode = 302;
        res.setHeader('location', '/gzip');
        res.end();
      } else {
        res.end(`<html>${req.headers['user-agent']}</html>`);
      }
    });
    proxy = await startConnectProxy();
  });

  afterAll(async () => {
    await proxy.close();
    await upstream.close();
  });

  it('refuses loopback unless SSRF_ALLOW_HOSTS lets it through', async () => {
    const closed = new UpstreamFetcher({ fetch: guardedFetch('') });
    await expect(closed.fetchPage(`${upstream.url}/`, { timeoutMs: 5000 })).rejects.toMatchObject({
      code: 'URL_NOT_ALLOWED',
    });
    const open = new UpstreamFetcher({ fetch: guardedFetch('127.0.0.1') });
    const page = await open.fetchPage(`${upstream.url}/`, { timeoutMs: 5000 });
    expect(page.html).toMatch(/Chrome\//);
  });

  it('decompresses a gzip page and decodes its charset, following redirects', async () => {
    const fetcher = new UpstreamFetcher({ fetch: guardedFetch(['127.0.0.1']) });
    const page = await fetcher.fetchPage(`${upstream.url}/hop`, { timeoutMs: 5000 });
    expect(page.html).toBe('<html>zipped ünïcode</html>');
    expect(page.url).toBe(`${upstream.url}/gzip`);
  });

  it('goes through the proxy when one is configured, still checking the target', async () => {
    const fetcher = new UpstreamFetcher({
      fetch: guardedFetch('127.0.0.1'),
      proxies: new ProxyRotation([proxy.url]),
      proxyDispatcher: (p) => new ProxyAgent(p),
    });
    const page = await fetcher.fetchPage(`${upstream.url}/hop`, { timeoutMs: 5000 });
    expect(page.html).toBe('<html>zipped ünïcode</html>');
    expect(page.proxy).toBe(proxy.url);
    expect(proxy.tunnels).toContain(`127.0.0.1:${upstream.port}`);
    const before = proxy.tunnels.length;
    await expect(fetcher.fetchPage('http://10.1.2.3/', { timeoutMs: 5000 })).rejects.toMatchObject({
      code: 'URL_NOT_ALLOWED',
    });
    expect(proxy.tunnels.length).toBe(before);
    await fetcher.close();
  });
});
