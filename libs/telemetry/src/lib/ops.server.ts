import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

export interface Readiness {
  ok: boolean;
  /** Per-dependency detail shown in the response, e.g. `{ nats: 'connected', redis: 'ready' }`. */
  details?: Record<string, unknown>;
}

/** Where the ops server binds unless told: this machine only. */
export const DEFAULT_OPS_HOST = '127.0.0.1';

export interface OpsServerOptions {
  /** 0 picks a free port (tests). */
  port: number;
  /**
   * Address to bind; default 127.0.0.1: `/metrics` and readiness's error details are not for the network unless the
   * operator says so (OPS_HOST; containers set 0.0.0.0 for the kubelet's probes and Prometheus). ADR 0021.
   */
  host?: string;
  registry: Registry;
  /** Readiness: every dependency the service needs to do work. A throw or a time-out counts as not ready. */
  ready: () => Promise<Readiness>;
  /** How long `ready` may take before the probe answers 503; default 2000 ms. */
  readyTimeoutMs?: number;
  /**
   * Handlers of their own path prefixes, any method (e.g. task-service's queue dashboard at `/admin/queues`, which
   * guards itself). A request whose path is the prefix or starts with `prefix/` goes to the first that matches.
   */
  mounts?: readonly OpsMount[];
}

export interface OpsMount {
  prefix: string;
  handle: (req: IncomingMessage, res: ServerResponse) => void;
  /** Called when the ops server closes. */
  close?: () => Promise<void>;
}

export interface OpsServer {
  /** The port actually bound. */
  readonly port: number;
  close(): Promise<void>;
}

function send(res: ServerResponse, status: number, contentType: string, body: string): void {
  res.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-store' });
  res.end(body);
}

function json(res: ServerResponse, status: number, body: unknown): void {
  send(res, status, 'application/json; charset=utf-8', JSON.stringify(body));
}

async function readiness(options: OpsServerOptions): Promise<Readiness> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Readiness>((resolve) => {
    timer = setTimeout(
      () => resolve({ ok: false, details: { error: 'readiness check timed out' } }),
      options.readyTimeoutMs ?? 2000,
    );
  });
  try {
    return await Promise.race([options.ready(), timeout]);
  } catch (error) {
    return { ok: false, details: { error: error instanceof Error ? error.message : String(error) } };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The operations endpoints of a NATS-only service, on their own port (METRICS_PORT):
 * `GET /metrics` (Prometheus text), `GET /health/live` (200 while the process runs) and `GET /health/ready`
 * (200 when `ready()` says ok, else 503 with the details), and whatever `mounts` serve. Anything else is 404.
 */
export async function startOpsServer(options: OpsServerOptions): Promise<OpsServer> {
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? '/').split('?')[0];
    const mount = options.mounts?.find((m) => path === m.prefix || path.startsWith(`${m.prefix}/`));
    if (mount) return mount.handle(req, res);
    if (req.method !== 'GET' && req.method !== 'HEAD') return json(res, 405, { error: 'method not allowed' });
    switch (path) {
      case '/metrics':
        return send(res, 200, options.registry.contentType, await options.registry.metrics());
      case '/health/live':
        return json(res, 200, { status: 'ok' });
      case '/health/ready': {
        const r = await readiness(options);
        return json(res, r.ok ? 200 : 503, { status: r.ok ? 'ok' : 'unavailable', details: r.details ?? {} });
      }
      default:
        return json(res, 404, { error: 'not found' });
    }
  };
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) json(res, 500, { error: error instanceof Error ? error.message : String(error) });
      else res.destroy();
    });
  });
  // Probes must not keep the process alive on shutdown.
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? DEFAULT_OPS_HOST, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      await new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      });
      await Promise.all((options.mounts ?? []).map((m) => m.close?.()));
    },
  };
}
