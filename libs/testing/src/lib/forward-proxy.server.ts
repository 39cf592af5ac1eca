import { createServer, request, type IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';

/** Every target goes to loopback, whatever its name: tests never send anything off the machine. */
const LOOPBACK = '127.0.0.1';

/** What a test forward proxy saw: one entry per request or CONNECT tunnel, with the credentials it was given. */
export interface ProxiedCall {
  method: string;
  /** Absolute URI (plain http) or `host:port` (CONNECT). */
  target: string;
  authorized: boolean;
}

export interface TestForwardProxy {
  /** `http://user:pass@127.0.0.1:N` (with the credentials it expects). */
  url: string;
  port: number;
  calls: ProxiedCall[];
  /** TCP connections accepted so far. */
  connections: number;
  close(): Promise<void>;
}

/**
 * A forward proxy on 127.0.0.1 for tests, standing in for an operator's upstream proxy: it wants Basic
 * credentials (`user`/`pass`; 407 otherwise), counts connections, records every request and tunnel, and forwards
 * them, always to 127.0.0.1 at the target's port (names are test names; nothing leaves loopback). `silent: true` accepts connections and never answers.
 */
export async function startForwardProxy(
  options: { user?: string; pass?: string; silent?: boolean } = {},
): Promise<TestForwardProxy> {
  const user = options.user ?? 'user';
  const pass = options.pass ?? 'pass';
  const expected = `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;
  const calls: ProxiedCall[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const authorized = req.headers['proxy-authorization'] === expected;
    calls.push({ method: req.method ?? 'GET', target: req.url ?? '', authorized });
    if (!authorized) {
      res.writeHead(407, { 'proxy-authenticate': 'Basic realm="test"' }).end();
      return;
    }
    const target = new URL(req.url ?? '');
    const headers = { ...req.headers };
    delete headers['proxy-authorization'];
    const up = request(
      {
        host: LOOPBACK,
        port: target.port || 80,
        path: `${target.pathname}${target.search}`,
        method: req.method,
        headers,
      },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.rawHeaders);
        r.pipe(res);
      },
    );
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    const authorized = req.headers['proxy-authorization'] === expected;
    calls.push({ method: 'CONNECT', target: req.url ?? '', authorized });
    client.on('error', () => undefined);
    if (options.silent) return;
    if (!authorized) {
      client.end('HTTP/1.1 407 Proxy Authentication Required\r\nproxy-authenticate: Basic realm="test"\r\n\r\n');
      return;
    }
    const port = (req.url ?? '').split(':').pop();
    const up = connect({ host: LOOPBACK, port: Number(port) }, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) up.write(head);
      up.pipe(client);
      client.pipe(up);
    });
    up.on('error', () => client.destroy());
    client.on('close', () => up.destroy());
  });
  if (options.silent) server.removeAllListeners('request');
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const port = (server.address() as { port: number }).port;
  const proxy: TestForwardProxy = {
    url: `http://${encodeURIComponent(user)}:${encodeURIComponent(pass)}@127.0.0.1:${port}`,
    port,
    calls,
    connections: 0,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((ok) => server.close(() => ok()));
    },
  };
  server.on('connection', () => proxy.connections++);
  return proxy;
}
