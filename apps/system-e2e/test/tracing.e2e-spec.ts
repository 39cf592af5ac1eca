import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Webhook } from 'standardwebhooks';
import { eventually, startLoopbackHttp, type LoopbackServer } from '@trawl/testing';
import { API_KEY, callApi, SIGNING_SECRET, startStack, type ServiceName, type Stack } from './support/stack.js';

/** One span as the OTLP/HTTP JSON exporter reports it, with the service that sent it. */
interface ReportedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** OTLP span kind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
}

const KIND = { server: 2, client: 3, producer: 4, consumer: 5 } as const;

interface OtlpAttribute {
  key: string;
  value: { stringValue?: string };
}

interface OtlpTraces {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: { spans?: { traceId: string; spanId: string; parentSpanId?: string; name: string; kind: number }[] }[];
  }[];
}

/** OTLP JSON ids are hex; accept base64 too (the protobuf-JSON mapping) so the stub does not depend on it. */
function hexId(id: string | undefined): string {
  if (!id) return '';
  return /^[0-9a-f]+$/i.test(id) ? id.toLowerCase() : Buffer.from(id, 'base64').toString('hex');
}

/** A loopback OTLP/HTTP collector: keeps every span POSTed to /v1/traces (JSON) in memory; other signals are accepted and dropped. */
async function startCollector(): Promise<{
  url: string;
  spans: ReportedSpan[];
  /** Every traces export as it arrived (JSON text), attributes included. */
  bodies: string[];
  close(): Promise<void>;
}> {
  const spans: ReportedSpan[] = [];
  const bodies: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/v1/traces') {
        bodies.push(Buffer.concat(chunks).toString('utf8'));
        const body = JSON.parse(bodies[bodies.length - 1] ?? '{}') as OtlpTraces;
        for (const rs of body.resourceSpans ?? []) {
          const service = rs.resource?.attributes?.find((a) => a.key === 'service.name')?.value.stringValue ?? '';
          for (const ss of rs.scopeSpans ?? []) {
            for (const s of ss.spans ?? []) {
              spans.push({
                service,
                traceId: hexId(s.traceId),
                spanId: hexId(s.spanId),
                parentSpanId: hexId(s.parentSpanId),
                name: s.name,
                kind: s.kind,
              });
            }
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    bodies,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/;

/**
 * Issue (tracing), "must show": one trace follows a URL batch from the gateway's HTTP request through NATS to
 * task-service, into the BullMQ job, through extractor-scrape, out of JetStream to webhook-dispatcher and onto the
 * webhook POST. Every service is its own process exporting OTLP/HTTP JSON to a collector stub on loopback.
 */
describe('one trace across the whole stack (processes, OTLP to a loopback collector)', () => {
  let collector: Awaited<ReturnType<typeof startCollector>>;
  let site: LoopbackServer;
  let receiver: LoopbackServer;
  let stack: Stack;

  beforeAll(async () => {
    collector = await startCollector();
    site = await startLoopbackHttp((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><html><head><title>Traced</title></head><body><h1>Traced page</h1></body></html>');
    });
    receiver = await startLoopbackHttp((_req, res) => {
      res.statusCode = 204;
      res.end();
    });
    stack = await startStack(['gateway', 'task-service', 'webhook-dispatcher', 'extractor-scrape'], {
      SSRF_ALLOW_HOSTS: '127.0.0.1',
      TASK_SCRAPE_ENGINE: 'http',
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
      OTEL_METRICS_EXPORTER: 'none',
      OTEL_LOGS_EXPORTER: 'none',
    });
  });

  afterAll(async () => {
    await stack?.stop();
    await Promise.all([site?.close(), receiver?.close(), collector?.close()]);
  });

  it('puts the gateway request, task-service, the job, extractor-scrape and the webhook POST in one trace', async () => {
    const res = await callApi(stack, 'POST', '/extractTask/batch', {
      urls: [`${site.url}/traced`],
      type: 'scrape',
      webhook: `${receiver.url}/hook`,
      timeout: 20000,
    });
    expect(res.status).toBe(200);
    const [job] = res.body.data as { id: string }[];

    const delivery = await eventually(() => receiver.requests.find((r) => r.url === '/hook'), 60_000, 100);
    // The POST is still signed over id.timestamp.body, trace header or not.
    const headers = Object.fromEntries(Object.entries(delivery.headers).map(([k, v]) => [k, String(v)]));
    const body = new Webhook(SIGNING_SECRET).verify(delivery.body, headers) as { taskId: string; event: string };
    expect(body).toMatchObject({ taskId: job?.id, event: 'task.completed' });

    const [, traceId, parentSpanId] = TRACEPARENT.exec(headers['traceparent'] ?? '') ?? [];
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);

    const services: ServiceName[] = ['gateway', 'task-service', 'extractor-scrape', 'webhook-dispatcher'];
    const inTrace = () => collector.spans.filter((s) => s.traceId === traceId);
    const find = (service: ServiceName, kind: number, name?: string) =>
      inTrace().find((s) => s.service === service && s.kind === kind && (name === undefined || s.name === name));
    // Spans arrive in batches; wait until each service has reported its part.
    await eventually(
      () =>
        find('gateway', KIND.server) &&
        find('task-service', KIND.server, 'task.submit.v1') &&
        find('task-service', KIND.consumer) &&
        find('extractor-scrape', KIND.server, 'scrape.page.v1') &&
        find('webhook-dispatcher', KIND.client, 'webhook POST'),
      30_000,
      100,
    ).catch((e: unknown) => {
      const seen = collector.spans.map(
        (s) => `${s.service} ${s.kind} ${s.name} ${s.traceId === traceId ? 'in' : 'OUT'}`,
      );
      throw new Error(`spans missing from trace ${traceId}: ${String(e)}\n${[...new Set(seen)].join('\n')}`);
    });

    expect(new Set(inTrace().map((s) => s.service))).toEqual(new Set(services));
    // The webhook's traceparent names the dispatcher's delivery span, which continues the job's trace.
    expect(find('webhook-dispatcher', KIND.client, 'webhook POST')?.spanId).toBe(parentSpanId);
    // The extractor's request was made by the job, inside its CONSUMER span.
    const consumer = find('task-service', KIND.consumer);
    const sendToExtractor = inTrace().find((s) => s.service === 'task-service' && s.name === 'send scrape.page.v1');
    expect(sendToExtractor?.parentSpanId).toBe(consumer?.spanId);
    expect(find('extractor-scrape', KIND.server, 'scrape.page.v1')?.parentSpanId).toBe(sendToExtractor?.spanId);
    // The trace starts at the gateway's HTTP request span.
    const root = inTrace().find((s) => s.parentSpanId === '');
    expect(root?.service).toBe('gateway');
    expect(root?.kind).toBe(KIND.server);
  });

  it("never records a key sent in the query (SerpAPI's api_key): not in a span, a log line or an answer", async () => {
    const root = new URL(stack.baseUrl).origin;
    const paths = [
      `/search.json?engine=google&q=traced&api_key=${API_KEY}`,
      `/search?engine=bing&api_key=${API_KEY}`,
      `/searches/unknown?api_key=${API_KEY}`,
      `/api/openapi/v1/nothing?api_key=${API_KEY}`,
    ];
    for (const path of paths) {
      const res = await fetch(`${root}${path}`);
      expect({ path, leaked: (await res.text()).includes(API_KEY) }).toEqual({ path, leaked: false });
    }
    // The gateway's HTTP spans of those requests reach the collector, their URL attributes redacted.
    await eventually(
      () =>
        collector.bodies.some((b) => b.includes('api_key=REDACTED') && b.includes('/searches/unknown')) || undefined,
      30_000,
      100,
    );
    expect(collector.bodies.filter((b) => b.includes(API_KEY))).toEqual([]);
    expect(stack.services.get('gateway')?.output()).not.toContain(API_KEY);
  });
});
