import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { request } from 'node:http';
import { connect } from 'node:net';
import { startLoopbackHttp, type LoopbackServer } from '@trawl/testing';
import { parseAllowList } from './address-policy.js';
import type { Resolver } from './check-url.js';
import { GuardProxy, REFUSED_HEADER } from './guard-proxy.js';

// A stubbed DNS: both names point at 127.0.0.1, only `site.test` is allowlisted (the only address used is loopback).
const resolve: Resolver = async (host) => {
  if (host === 'site.test' || host === 'internal.test') return ['127.0.0.1'];
  throw Object.assign(new Error(`ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
};

function viaProxy(proxyUrl: string, target: string): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const proxy = new URL(proxyUrl);
  return new Promise((ok, ko) => {
    const req = request({ host: proxy.hostname, port: proxy.port, path: target, headers: { host: new URL(target).host } }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => ok({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', ko);
    req.end();
  });
}

function connectVia(proxyUrl: string, target: string): Promise<string> {
  const proxy = new URL(proxyUrl);
  return new Promise((ok, ko) => {
    const s = connect({ host: proxy.hostname, port: Number(proxy.port) }, () => s.write(`CONNECT ${target} HTTP/1.1\r\nhost: ${target}\r\n\r\n`));
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
    site = await startLoopbackHttp((req, res) => void res.writeHead(200, { 'content-type': 'text/plain' }).end(`saw ${req.url}`));
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
