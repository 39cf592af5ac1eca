import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { request } from 'node:http';
import { connect, createServer as createNetServer, type Socket } from 'node:net';
import { startForwardProxy, startLoopbackHttp, type LoopbackServer, type TestForwardProxy } from '@trawl/testing';
import { parseAllowList } from './address.policy.js';
import type { Resolver } from './check-url.guard.js';
import { GuardProxy, REFUSED_HEADER } from './guard-proxy.server.js';

// A stubbed DNS: both names point at 127.0.0.1, only `site.test` is allowlisted (the only address used is loopback).
// `public.test` answers a public address to the check (an upstream proxy resolving it again could get another one).
const resolve: Resolver = async (host) => {
  if (host === 'site.test' || host === 'internal.test') return ['127.0.0.1'];
  if (host === 'public.test') return ['93.184.216.34'];
  throw Object.assign(new Error(`ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
};

function viaProxy(
  proxyUrl: string,
  target: string,
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const proxy = new URL(proxyUrl);
  return new Promise((ok, ko) => {
    const req = request(
      { host: proxy.hostname, port: proxy.port, path: target, headers: { host: new URL(target).host } },
      (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => ok({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', ko);
    req.end();
  });
}

function connectVia(proxyUrl: string, target: string): Promise<string> {
  const proxy = new URL(proxyUrl);
  return new Promise((ok, ko) => {
    const s = connect({ host: proxy.hostname, port: Number(proxy.port) }, () =>
      s.write(`CONNECT ${target} HTTP/1.1\r\nhost: ${target}\r\n\r\n`),
    );
    let out = '';
    s.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('\r\n\r\n')) {
        s.destroy();
        ok(out.split('\r\n')[0]);
      }
    });
    s.on('error', ko);
  });
}

describe('GuardProxy', () => {
  let site: LoopbackServer;
  let proxy: GuardProxy;
  let proxyUrl: string;

  beforeAll(async () => {
    site = await startLoopbackHttp(
      (req, res) => void res.writeHead(200, { 'content-type': 'text/plain' }).end(`saw ${req.url}`),
    );
    proxy = new GuardProxy({ allow: parseAllowList('site.test'), resolve });
    proxyUrl = await proxy.start();
  });

  afterAll(async () => {
    await proxy?.close();
    await site?.close();
  });

  it('forwards a request to an allowed host', async () => {
    const res = await viaProxy(proxyUrl, `http://site.test:${site.port}/page?q=1`);
    expect(res.status).toBe(200);
    expect(res.body).toBe('saw /page?q=1');
  });

  it('refuses a host that resolves to a non-public address before anything reaches it', async () => {
    const before = site.requests.length;
    const res = await viaProxy(proxyUrl, `http://internal.test:${site.port}/secret`);
    expect(res.status).toBe(403);
    expect(res.headers[REFUSED_HEADER]).toBe('1');
    expect(res.body).toContain('internal.test');
    expect(site.requests.length).toBe(before);
  });

  it('refuses the metadata address', async () => {
    const res = await viaProxy(proxyUrl, 'http://169.254.169.254/latest/meta-data/');
    expect(res.status).toBe(403);
  });

  it('refuses a CONNECT tunnel to a non-public address and opens one to an allowed host', async () => {
    expect(await connectVia(proxyUrl, '169.254.169.254:443')).toBe('HTTP/1.1 403 Forbidden');
    expect(await connectVia(proxyUrl, `site.test:${site.port}`)).toBe('HTTP/1.1 200 Connection Established');
  });
});

describe('GuardProxy refusals, lanes and timeouts', () => {
  let site: LoopbackServer;
  let upstream: TestForwardProxy;
  let proxy: GuardProxy;
  const events: string[] = [];

  beforeAll(async () => {
    site = await startLoopbackHttp(
      (req, res) => void res.writeHead(200, { 'content-type': 'text/plain' }).end(`saw ${req.url}`),
    );
    upstream = await startForwardProxy({ user: 'alice', pass: 's3cret' });
    proxy = new GuardProxy({
      allow: parseAllowList('site.test'),
      resolve,
      onUpstream: (p, outcome) => events.push(`${p} ${outcome}`),
    });
    await proxy.start();
  });
  afterAll(async () => {
    await proxy?.close();
    await upstream?.close();
    await site?.close();
  });

  it('names the refused host but not the internal address it resolved to', async () => {
    const res = await viaProxy(proxy.url, `http://internal.test:${site.port}/x`);
    expect(res.status).toBe(403);
    expect(res.body).toContain('internal.test');
    expect(res.body).not.toContain('127.0.0.1');
    expect(await connectVia(proxy.url, `internal.test:${site.port}`)).toBe('HTTP/1.1 403 Forbidden');
  });

  it('forwards through its lane to the upstream proxy, with credentials: absolute URI for http, CONNECT for tunnels', async () => {
    const lane = await proxy.laneFor(upstream.url);
    expect(lane).not.toBe(proxy.url);
    const res = await viaProxy(lane, `http://site.test:${site.port}/through-upstream`);
    expect(res.body).toBe('saw /through-upstream');
    expect(await connectVia(lane, `site.test:${site.port}`)).toBe('HTTP/1.1 200 Connection Established');
    expect(upstream.calls).toEqual([
      { method: 'GET', target: `http://site.test:${site.port}/through-upstream`, authorized: true },
      { method: 'CONNECT', target: `site.test:${site.port}`, authorized: true },
    ]);
    // Metrics label: host:port of the proxy, never its credentials.
    expect(events).toEqual([`127.0.0.1:${upstream.port} ok`, `127.0.0.1:${upstream.port} ok`]);
    expect(events.join()).not.toContain('s3cret');
  });

  it('asks the upstream proxy for the checked address, never the name (DNS rebinding), Host still the name', async () => {
    const lane = await proxy.laneFor(upstream.url);
    const before = upstream.calls.length;
    const res = await viaProxy(lane, `http://public.test:${site.port}/pinned`);
    expect(res.body).toBe('saw /pinned');
    expect(site.requests.at(-1)?.headers.host).toBe(`public.test:${site.port}`);
    expect(await connectVia(lane, `public.test:${site.port}`)).toBe('HTTP/1.1 200 Connection Established');
    expect(upstream.calls.slice(before)).toEqual([
      { method: 'GET', target: `http://93.184.216.34:${site.port}/pinned`, authorized: true },
      { method: 'CONNECT', target: `93.184.216.34:${site.port}`, authorized: true },
    ]);
  });

  it('refuses a non-public target on a lane before anything reaches the upstream proxy', async () => {
    const lane = await proxy.laneFor(upstream.url);
    const before = upstream.calls.length;
    expect((await viaProxy(lane, 'http://10.0.0.1/')).status).toBe(403);
    expect(await connectVia(lane, '10.0.0.1:443')).toBe('HTTP/1.1 403 Forbidden');
    expect(upstream.calls.length).toBe(before);
  });

  it('reports an upstream proxy that refuses its credentials as rejected', async () => {
    const wrong = await proxy.laneFor(upstream.url.replace('s3cret', 'wrong'));
    events.length = 0;
    expect(await connectVia(wrong, `site.test:${site.port}`)).toBe('HTTP/1.1 502 Bad Gateway');
    expect(events).toEqual([`127.0.0.1:${upstream.port} rejected`]);
  });
});

describe('GuardProxy timeouts and socket cleanup', () => {
  it('closes a tunnel on both sides when it stays idle, and the target side when the client goes away', async () => {
    const targetClosed: string[] = [];
    const target = createNetServer((s) => s.on('close', () => targetClosed.push('closed')));
    await new Promise<void>((ok) => target.listen(0, '127.0.0.1', ok));
    const port = (target.address() as { port: number }).port;
    const proxy = new GuardProxy({ allow: parseAllowList('site.test'), resolve, idleTimeoutMs: 200 });
    await proxy.start();
    try {
      const idle = await openTunnel(proxy.url, `site.test:${port}`);
      await new Promise<void>((ok) => idle.once('close', () => ok())); // closed by the proxy: nobody sent a byte
      const gone = await openTunnel(proxy.url, `site.test:${port}`);
      gone.destroy();
      for (let i = 0; i < 50 && targetClosed.length < 2; i++) await new Promise((r) => setTimeout(r, 20));
      expect(targetClosed).toEqual(['closed', 'closed']);
    } finally {
      await proxy.close();
      await new Promise<void>((ok) => target.close(() => ok()));
    }
  });

  it('answers 504 when the upstream proxy does not answer the CONNECT in time', async () => {
    const silent = await startForwardProxy({ silent: true });
    const proxy = new GuardProxy({ allow: parseAllowList('site.test'), resolve, connectTimeoutMs: 200 });
    await proxy.start();
    try {
      expect(await connectVia(await proxy.laneFor(silent.url), 'site.test:443')).toBe('HTTP/1.1 504 Gateway Timeout');
    } finally {
      await proxy.close();
      await silent.close();
    }
  });
});

function openTunnel(proxyUrl: string, target: string): Promise<Socket> {
  const proxy = new URL(proxyUrl);
  return new Promise((ok, ko) => {
    const s = connect({ host: proxy.hostname, port: Number(proxy.port) }, () =>
      s.write(`CONNECT ${target} HTTP/1.1\r\nhost: ${target}\r\n\r\n`),
    );
    s.once('data', (c: Buffer) => (c.toString().startsWith('HTTP/1.1 200') ? ok(s) : ko(new Error(c.toString()))));
    s.on('error', ko);
  });
}
