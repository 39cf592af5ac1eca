import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:tls';
import { ProxyAgent } from 'undici';
import { TrawlError } from '@trawl/contracts';
import { startForwardProxy, startLoopbackHttp, type LoopbackServer, type TestForwardProxy } from '@trawl/testing';
import type { Resolver } from './check-url.guard.js';
import { safeFetch } from './safe-fetch.client.js';

/**
 * DNS rebinding through an upstream proxy: the name answers a public address to the check and an internal one to
 * anyone who asks again. The fake upstream proxy (loopback; it records the target it is asked for and sends
 * everything to 127.0.0.1) must be asked for the checked address, never for the name it would resolve itself.
 */
describe('safeFetch through an upstream proxy sends the checked address, not the name', () => {
  const PUBLIC = '93.184.216.34';
  const PUBLIC6 = '2606:2800:220:1:248:1893:25c8:1946';
  const resolve: Resolver = async (host) => {
    if (host === 'rebind.test') return [PUBLIC];
    if (host === 'rebind6.test') return [PUBLIC6];
    throw Object.assign(new Error(`ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  };
  let site: LoopbackServer;
  let upstream: TestForwardProxy;
  let tls: TlsServer;
  let tlsPort: number;
  const sniSeen: string[] = [];

  beforeAll(async () => {
    site = await startLoopbackHttp((req, res) => void res.writeHead(200).end(`host ${req.headers.host}`));
    upstream = await startForwardProxy();
    // A TLS endpoint with no certificate: it records the SNI of the ClientHello, then the handshake fails.
    tls = createTlsServer({
      SNICallback: (name, cb) => {
        sniSeen.push(name);
        cb(new Error('no certificate here'));
      },
    });
    tls.on('tlsClientError', () => undefined);
    await new Promise<void>((ok) => tls.listen(0, '127.0.0.1', ok));
    tlsPort = (tls.address() as { port: number }).port;
  });

  afterAll(async () => {
    await upstream?.close();
    await site?.close();
    await new Promise<void>((ok) => (tls ? tls.close(() => ok()) : ok()));
  });

  it('tunnels to the checked address (CONNECT address:port) with Host the name', async () => {
    const dispatcher = new ProxyAgent(upstream.url);
    try {
      const res = await safeFetch(`http://rebind.test:${site.port}/page`, { resolve, dispatcher });
      expect(res.text()).toBe(`host rebind.test:${site.port}`);
      expect(res.url).toBe(`http://rebind.test:${site.port}/page`);
      expect(upstream.calls.at(-1)).toEqual({ method: 'CONNECT', target: `${PUBLIC}:${site.port}`, authorized: true });
    } finally {
      await dispatcher.close();
    }
  });

  it('asks a proxy in absolute form for the checked address, IPv6 in brackets, Host the name', async () => {
    const dispatcher = new ProxyAgent({ uri: upstream.url, proxyTunnel: false });
    try {
      const res = await safeFetch(`http://rebind6.test:${site.port}/page?q=1`, { resolve, dispatcher });
      expect(res.text()).toBe(`host rebind6.test:${site.port}`);
      expect(upstream.calls.at(-1)).toEqual({
        method: 'GET',
        target: `http://[${PUBLIC6}]:${site.port}/page?q=1`,
        authorized: true,
      });
    } finally {
      await dispatcher.close();
    }
  });

  it('sends TLS SNI for the name inside a tunnel to the checked address', async () => {
    const dispatcher = new ProxyAgent(upstream.url);
    try {
      const err = await safeFetch(`https://rebind.test:${tlsPort}/`, { resolve, dispatcher }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(TrawlError); // the endpoint has no certificate: what matters is what it was asked
      expect(upstream.calls.at(-1)).toEqual({ method: 'CONNECT', target: `${PUBLIC}:${tlsPort}`, authorized: true });
      expect(sniSeen).toContain('rebind.test');
    } finally {
      await dispatcher.close();
    }
  });
});
