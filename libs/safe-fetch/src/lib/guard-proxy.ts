import { Agent, createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { TrawlError } from '@trawl/contracts';
import { EMPTY_ALLOW_LIST, type AllowList } from './address-policy.js';
import { checkUrl, systemResolver, type Resolver } from './check-url.js';
import { guardedLookup } from './guarded-lookup.js';
import { toUpstreamError } from './upstream-error.js';

/** Header on the proxy's own 403 answer, so a refused hop is recognisable in the browser. */
export const REFUSED_HEADER = 'x-trawl-refused';

export interface GuardProxyOptions {
  allow?: AllowList;
  resolve?: Resolver;
}

const HOP_HEADERS = ['proxy-connection', 'proxy-authorization', 'keep-alive'];

/**
 * A forward HTTP proxy on 127.0.0.1 that applies the SSRF decision to every request a browser sends through it
 * (plain requests and CONNECT tunnels): the URL's host is checked before anything is sent, and the address the
 * socket uses is checked again at connect time. Chromium behind it cannot reach a refused address by any path:
 * redirect hops, iframes, fetches, tunnels. Refused requests get a 403 (CONNECT: the tunnel is refused).
 */
export class GuardProxy {
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 64 });
  private readonly allow: AllowList;
  private readonly resolve: Resolver;
  /** Requests refused so far (for stats and tests). */
  refused = 0;
  /** The proxy URL for the browser once started (`http://127.0.0.1:N`). */
  url = '';

  constructor(options: GuardProxyOptions = {}) {
    this.allow = options.allow ?? EMPTY_ALLOW_LIST;
    this.resolve = options.resolve ?? systemResolver;
  }

  /** Starts listening on a free loopback port; returns the proxy URL for the browser (`http://127.0.0.1:N`). */
  async start(): Promise<string> {
    const server = createServer((req, res) => void this.forward(req, res));
    server.on('connect', (req: IncomingMessage, socket: Socket, head: Buffer) => void this.tunnel(req, socket, head));
    server.on('connection', (s: Socket) => {
      this.sockets.add(s);
      s.once('close', () => this.sockets.delete(s));
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    this.server = server;
    const address = server.address();
    this.url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    return this.url;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    this.agent.destroy();
    await new Promise<void>((ok) => (this.server ? this.server.close(() => ok()) : ok()));
  }

  private async forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let target: URL;
    try {
      target = new URL(req.url ?? '');
      await checkUrl(target, { allow: this.allow, resolve: this.resolve });
    } catch (e) {
      this.refuse(res, e);
      return;
    }
    const headers = { ...req.headers };
    for (const h of HOP_HEADERS) delete headers[h];
    const upstream = request(
      {
        host: target.hostname.replace(/^\[(.*)\]$/, '$1'),
        port: target.port || 80,
        path: `${target.pathname}${target.search}`,
        method: req.method,
        headers,
        agent: this.agent,
        lookup: guardedLookup(this.allow, this.resolve),
      },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.statusMessage, up.rawHeaders);
        up.pipe(res);
      },
    );
    upstream.on('error', (e) => {
      if (res.headersSent) res.destroy();
      else this.refuse(res, toUpstreamError(e, target.host));
    });
    req.pipe(upstream);
  }

  private async tunnel(req: IncomingMessage, client: Socket, head: Buffer): Promise<void> {
    client.on('error', () => undefined);
    const m = /^\[?([^\]]+?)\]?:(\d+)$/.exec(req.url ?? '');
    try {
      if (!m) throw new TrawlError('URL_NOT_ALLOWED', `bad CONNECT target ${req.url}`);
      await checkUrl(`https://${req.url}/`, { allow: this.allow, resolve: this.resolve });
    } catch (e) {
      this.refused++;
      client.end(`HTTP/1.1 403 Forbidden\r\n${REFUSED_HEADER}: ${encodeURIComponent(message(e))}\r\nconnection: close\r\n\r\n`);
      return;
    }
    const [, host, port] = m;
    const upstream = connect({ host, port: Number(port), lookup: guardedLookup(this.allow, this.resolve) });
    upstream.once('connect', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', (e) => {
      if (toUpstreamError(e, host).code === 'URL_NOT_ALLOWED') this.refused++;
      client.destroy();
    });
    client.on('close', () => upstream.destroy());
  }

  private refuse(res: ServerResponse, e: unknown): void {
    const err = e instanceof TrawlError ? e : toUpstreamError(e, 'upstream');
    const refused = err.code === 'URL_NOT_ALLOWED';
    if (refused) this.refused++;
    res
      .writeHead(refused ? 403 : 502, { 'content-type': 'text/plain; charset=utf-8', ...(refused ? { [REFUSED_HEADER]: '1' } : {}), connection: 'close' })
      .end(err.message);
  }
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
