import { Agent, createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { TrawlError } from '@trawl/contracts';
import { EMPTY_ALLOW_LIST, type AllowList } from './address.policy.js';
import { checkUrl, proxyHostname, systemResolver, type CheckedUrl, type Resolver } from './check-url.guard.js';
import { guardedLookup } from './guarded-lookup.resolver.js';
import { toUpstreamError } from './upstream-error.mapper.js';

/** Header on the proxy's own 403 answer, so a refused hop is recognisable in the browser. */
export const REFUSED_HEADER = 'x-trawl-refused';

/** What happened to one request or tunnel forwarded through an upstream proxy (for per-proxy metrics). */
export type UpstreamProxyOutcome = 'ok' | 'error' | 'timeout' | 'rejected';

export interface GuardProxyOptions {
  allow?: AllowList;
  resolve?: Resolver;
  /** Longest wait for a TCP connection (to the target, or to the upstream proxy and its CONNECT answer), ms. */
  connectTimeoutMs?: number;
  /** A tunnel or request with no byte either way for this long is closed on both sides, ms. */
  idleTimeoutMs?: number;
  /**
   * Called once per request or tunnel sent through an upstream proxy, with the proxy as `host:port` (never its
   * credentials) and the outcome (`rejected`: the proxy refused the CONNECT or asked for other credentials).
   */
  onUpstream?: (proxy: string, outcome: UpstreamProxyOutcome) => void;
}

export const GUARD_PROXY_DEFAULTS = { connectTimeoutMs: 10_000, idleTimeoutMs: 60_000 } as const;

/** An upstream proxy a lane forwards through: where, its `Proxy-Authorization`, and its name for metrics. */
interface Upstream {
  host: string;
  port: number;
  authorization?: string;
  label: string;
}

const HOP_HEADERS = ['proxy-connection', 'proxy-authorization', 'keep-alive'];
const MAX_CONNECT_HEAD = 16 * 1024;

/**
 * A forward HTTP proxy on 127.0.0.1 that applies the SSRF decision to every request a browser sends through it
 * (plain requests and CONNECT tunnels): the URL's host is checked before anything is sent, and the address the
 * socket uses is checked again at connect time. Chromium behind it cannot reach a refused address by any path:
 * redirect hops, iframes, fetches, tunnels. Refused requests get a 403 (CONNECT: the tunnel is refused).
 *
 * Lanes (`laneFor(proxyUrl)`): one more loopback listener per upstream proxy, doing the same checks and then
 * forwarding through that proxy (absolute-URI requests for http, CONNECT for tunnels, with its Proxy-Authorization).
 * The proxy is given the address the check passed, never the name to resolve again (DNS rebinding); the name stays
 * in `Host` (and, inside a tunnel, in the browser's own Host and SNI). A browser context whose proxy is a lane is
 * guarded exactly as one on the main port.
 *
 * Connections have a connect timeout and an idle timeout, and whichever side ends or fails, the other is closed.
 * Refusal messages name the host, never the address it resolved to.
 */
export class GuardProxy {
  private server?: Server;
  private readonly lanes = new Map<string, Promise<{ server: Server; url: string }>>();
  private readonly sockets = new Set<Socket>();
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 64 });
  private readonly allow: AllowList;
  private readonly resolve: Resolver;
  private readonly connectTimeoutMs: number;
  private readonly idleTimeoutMs: number;
  private readonly onUpstream?: GuardProxyOptions['onUpstream'];
  /** Requests refused so far (for stats and tests). */
  refused = 0;
  /** The proxy URL for the browser once started (`http://127.0.0.1:N`). */
  url = '';

  constructor(options: GuardProxyOptions = {}) {
    this.allow = options.allow ?? EMPTY_ALLOW_LIST;
    this.resolve = options.resolve ?? systemResolver;
    this.connectTimeoutMs = options.connectTimeoutMs ?? GUARD_PROXY_DEFAULTS.connectTimeoutMs;
    this.idleTimeoutMs = options.idleTimeoutMs ?? GUARD_PROXY_DEFAULTS.idleTimeoutMs;
    this.onUpstream = options.onUpstream;
  }

  /** Starts listening on a free loopback port; returns the proxy URL for the browser (`http://127.0.0.1:N`). */
  async start(): Promise<string> {
    const { server, url } = await this.listen(undefined);
    this.server = server;
    this.url = url;
    return url;
  }

  /**
   * The loopback URL of the lane that forwards through `proxyUrl` (`http://user:pass@host:port`), started on first
   * use. The upstream proxy is trusted configuration (PROXY_URLS): its own address is not checked, every target is.
   */
  laneFor(proxyUrl: string): Promise<string> {
    let lane = this.lanes.get(proxyUrl);
    if (!lane) {
      lane = this.listen(parseUpstream(proxyUrl));
      this.lanes.set(proxyUrl, lane);
    }
    return lane.then((l) => l.url);
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    this.agent.destroy();
    const servers = [
      this.server,
      ...(await Promise.all(
        [...this.lanes.values()].map((l) =>
          l.then(
            (x) => x.server,
            () => undefined,
          ),
        ),
      )),
    ];
    await Promise.all(servers.map((s) => new Promise<void>((ok) => (s ? s.close(() => ok()) : ok()))));
  }

  private async listen(upstream: Upstream | undefined): Promise<{ server: Server; url: string }> {
    const server = createServer((req, res) => void this.forward(req, res, upstream));
    server.on(
      'connect',
      (req: IncomingMessage, socket: Socket, head: Buffer) => void this.tunnel(req, socket, head, upstream),
    );
    server.on('connection', (s: Socket) => {
      this.sockets.add(s);
      s.once('close', () => this.sockets.delete(s));
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    const address = server.address();
    return { server, url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` };
  }

  private async forward(req: IncomingMessage, res: ServerResponse, upstream: Upstream | undefined): Promise<void> {
    let target: URL;
    let checked: CheckedUrl;
    try {
      target = new URL(req.url ?? '');
      checked = await checkUrl(target, { allow: this.allow, resolve: this.resolve });
    } catch (e) {
      this.refuse(res, e, hostOf(req.url));
      return;
    }
    const headers: Record<string, string | string[] | undefined> = { ...req.headers };
    for (const h of HOP_HEADERS) delete headers[h];
    let outcome: UpstreamProxyOutcome | undefined;
    const report = (o: UpstreamProxyOutcome) => {
      if (upstream && outcome === undefined) this.onUpstream?.(upstream.label, (outcome = o));
    };
    const options = upstream
      ? {
          host: upstream.host,
          port: upstream.port,
          // Absolute URI with the checked address (the proxy must not resolve the name again), Host the name.
          path: pinned(checked),
          headers: {
            ...headers,
            host: target.host,
            ...(upstream.authorization ? { 'proxy-authorization': upstream.authorization } : {}),
          },
        }
      : {
          host: target.hostname.replace(/^\[(.*)\]$/, '$1'),
          port: target.port || 80,
          path: `${target.pathname}${target.search}`,
          headers,
          lookup: guardedLookup(this.allow, this.resolve),
        };
    const upstreamReq = request({ ...options, method: req.method, agent: this.agent }, (up) => {
      report(up.statusCode === 407 ? 'rejected' : 'ok');
      res.writeHead(up.statusCode ?? 502, up.statusMessage, up.rawHeaders);
      up.pipe(res);
      up.on('error', () => res.destroy());
    });
    upstreamReq.on('socket', (socket: Socket) => {
      if (!socket.connecting) return;
      const timer = setTimeout(() => upstreamReq.destroy(timeoutError()), this.connectTimeoutMs);
      socket.once('connect', () => clearTimeout(timer));
      socket.once('close', () => clearTimeout(timer));
    });
    upstreamReq.setTimeout(this.idleTimeoutMs, () => upstreamReq.destroy(timeoutError()));
    upstreamReq.on('error', (e) => {
      const err = toUpstreamError(e, target.host);
      report(err.code === 'UPSTREAM_TIMEOUT' ? 'timeout' : 'error');
      if (res.headersSent) res.destroy();
      else this.refuse(res, err, target.host);
    });
    // The browser gave up (tab closed, navigation): the request to the site or proxy ends too.
    res.once('close', () => {
      if (!res.writableFinished) upstreamReq.destroy();
    });
    req.pipe(upstreamReq);
  }

  private async tunnel(
    req: IncomingMessage,
    client: Socket,
    head: Buffer,
    upstream: Upstream | undefined,
  ): Promise<void> {
    client.on('error', () => undefined);
    const m = /^\[?([^\]]+?)\]?:(\d+)$/.exec(req.url ?? '');
    let checked: CheckedUrl;
    try {
      if (!m) throw new TrawlError('URL_NOT_ALLOWED', 'bad CONNECT target');
      checked = await checkUrl(`https://${req.url}/`, { allow: this.allow, resolve: this.resolve });
    } catch (e) {
      this.refused++;
      const why = publicMessage(e, m?.[1] ?? 'target');
      client.end(
        `HTTP/1.1 403 Forbidden\r\n${REFUSED_HEADER}: ${encodeURIComponent(why)}\r\nconnection: close\r\n\r\n`,
      );
      return;
    }
    const [, host, port] = m;
    let outcome: UpstreamProxyOutcome | undefined;
    const report = (o: UpstreamProxyOutcome) => {
      if (upstream && outcome === undefined) this.onUpstream?.(upstream.label, (outcome = o));
    };
    const socket = upstream
      ? connect({ host: upstream.host, port: upstream.port })
      : connect({ host, port: Number(port), lookup: guardedLookup(this.allow, this.resolve) });
    this.sockets.add(socket);
    let established = false;
    const closeBoth = () => {
      clearTimeout(connectTimer);
      socket.destroy();
      client.destroy();
    };
    const fail = (status: string) => {
      clearTimeout(connectTimer);
      socket.destroy();
      if (!established && client.writable) client.end(`HTTP/1.1 ${status}\r\nconnection: close\r\n\r\n`);
      else client.destroy();
    };
    const connectTimer = setTimeout(() => {
      report('timeout');
      fail('504 Gateway Timeout');
    }, this.connectTimeoutMs);
    const open = (rest: Buffer) => {
      clearTimeout(connectTimer);
      established = true;
      report('ok');
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (rest.length > 0) client.write(rest);
      if (head.length > 0) socket.write(head);
      socket.pipe(client);
      client.pipe(socket);
    };
    socket.once('connect', () => {
      if (!upstream) {
        open(Buffer.alloc(0));
        return;
      }
      const auth = upstream.authorization ? `proxy-authorization: ${upstream.authorization}\r\n` : '';
      // The tunnel goes to the checked address (the browser inside it still sends the name as Host and SNI).
      const to = `${proxyHostname(checked)}:${port}`;
      socket.write(`CONNECT ${to} HTTP/1.1\r\nhost: ${to}\r\n${auth}\r\n`);
      let answer = Buffer.alloc(0);
      const onData = (chunk: Buffer) => {
        answer = Buffer.concat([answer, chunk]);
        const end = answer.indexOf('\r\n\r\n');
        if (end < 0) {
          if (answer.length > MAX_CONNECT_HEAD) fail('502 Bad Gateway');
          return;
        }
        socket.off('data', onData);
        const status = /^HTTP\/1\.[01] (\d{3})/.exec(answer.subarray(0, end).toString('latin1'))?.[1];
        if (status === '200') open(answer.subarray(end + 4));
        else {
          report('rejected');
          fail('502 Bad Gateway');
        }
      };
      socket.on('data', onData);
    });
    socket.setTimeout(this.idleTimeoutMs, () => {
      report('timeout');
      closeBoth();
    });
    client.setTimeout(this.idleTimeoutMs, closeBoth);
    socket.on('error', (e) => {
      const err = toUpstreamError(e, host);
      if (err.code === 'URL_NOT_ALLOWED') this.refused++;
      report('error');
      fail(err.code === 'URL_NOT_ALLOWED' ? '403 Forbidden' : '502 Bad Gateway');
    });
    socket.once('close', () => {
      this.sockets.delete(socket);
      clearTimeout(connectTimer);
      client.destroy();
    });
    client.once('close', () => socket.destroy());
  }

  private refuse(res: ServerResponse, e: unknown, host: string): void {
    const err = e instanceof TrawlError ? e : toUpstreamError(e, host);
    const refused = err.code === 'URL_NOT_ALLOWED';
    if (refused) this.refused++;
    const status = refused ? 403 : err.code === 'UPSTREAM_TIMEOUT' ? 504 : 502;
    res
      .writeHead(status, {
        'content-type': 'text/plain; charset=utf-8',
        ...(refused ? { [REFUSED_HEADER]: '1' } : {}),
        connection: 'close',
      })
      .end(publicMessage(err, host));
  }
}

/** `http://user:pass@host:port` → where to connect and the Proxy-Authorization header (credentials stay out of labels). */
function parseUpstream(proxyUrl: string): Upstream {
  const u = new URL(proxyUrl);
  if (u.protocol !== 'http:')
    throw new TrawlError('VALIDATION_FAILED', 'an upstream proxy must be an http:// URL', { field: 'PROXY_URLS' });
  const user = decodeURIComponent(u.username);
  const authorization =
    user || u.password
      ? `Basic ${Buffer.from(`${user}:${decodeURIComponent(u.password)}`).toString('base64')}`
      : undefined;
  const port = Number(u.port || 80);
  return { host: u.hostname.replace(/^\[(.*)\]$/, '$1'), port, authorization, label: `${u.hostname}:${port}` };
}

/**
 * What a refusal or failure may say to the page (and so to the caller): the host, never an address it resolved
 * to (an internal address is itself information).
 */
function publicMessage(e: unknown, host: string): string {
  if (e instanceof TrawlError && e.code === 'URL_NOT_ALLOWED')
    return `host ${host} is not allowed: not a public address`;
  const text = e instanceof Error ? e.message : String(e);
  return text.replace(/\s*\(resolves to [^)]*\)/g, '');
}

function hostOf(url: string | undefined): string {
  try {
    return new URL(url ?? '').host;
  } catch {
    return 'target';
  }
}

/** The absolute URI for an upstream proxy: the checked URL with its host replaced by the checked address. */
function pinned(checked: CheckedUrl): string {
  const url = new URL(checked.url.href);
  url.hostname = proxyHostname(checked);
  return url.href;
}

function timeoutError(): Error {
  return Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' });
}
