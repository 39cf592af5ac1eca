import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  Controller,
  Module,
  UseFilters,
  type CallHandler,
  type ExecutionContext,
  type INestMicroservice,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MessagePattern, Payload, type MicroserviceOptions } from '@nestjs/microservices';
import { headers as natsHeaders, type NatsConnection } from '@nats-io/nats-core';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { SUBJECTS, TrawlError, type ScrapeRequestDto, type ScrapeResult } from '@trawl/contracts';
import { activeTraceIds, startTelemetry, traced, type Telemetry } from '@trawl/telemetry';
import { startNats, type TestServer } from '@trawl/testing';
import { of } from 'rxjs';
import { MessagingClient } from './messaging.client.js';
import { connectNats } from './nats-connection.factory.js';
import { natsServerOptions } from './nats-server.options.js';
import { NATS_TRACING, NatsTraceInterceptor } from './nats-trace.interceptor.js';
import { WireErrorFilter } from './wire-error.filter.js';

/** What the handler saw as its active trace, by the URL it was asked for. */
const seen = new Map<string, { traceId: string; spanId: string } | undefined>();

@Controller()
@UseFilters(WireErrorFilter)
class TracedController {
  @MessagePattern(SUBJECTS.scrapePage)
  async scrape(@Payload() req: ScrapeRequestDto): Promise<ScrapeResult> {
    await new Promise((r) => setTimeout(r, 5)); // the context must survive an await inside the handler
    seen.set(req.url, activeTraceIds());
    if (req.url.includes('blocked')) throw new TrawlError('UPSTREAM_BLOCKED', 'the site blocked us');
    return {
      sourceURL: req.url,
      taskId: 't1',
      edgeId: 'e1',
      status: 200,
      rawStatus: 200,
      markdown: '# ok',
      metadata: { title: 'x', url: req.url, engine: 'http', contentType: null },
    };
  }
}

@Module({ controllers: [TracedController], providers: [NATS_TRACING] })
class TracedModule {}

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_SPAN_ID = '00f067aa0ba902b7';

describe('NatsTraceInterceptor (real nats-server, in-memory span exporter)', () => {
  const exporter = new InMemorySpanExporter();
  let telemetry: Telemetry;
  let nats: TestServer;
  let app: INestMicroservice;
  let nc: NatsConnection;
  let client: MessagingClient;

  beforeAll(async () => {
    telemetry = await startTelemetry({
      serviceName: 'messaging-test',
      env: {},
      spanExporter: exporter,
      instrumentations: false,
    });
    nats = await startNats();
    app = await NestFactory.createMicroservice<MicroserviceOptions>(TracedModule, {
      ...natsServerOptions([nats.url], 'trace-test', { gracePeriodMs: 10 }),
      logger: false,
    });
    await app.listen();
    nc = await connectNats([nats.url], 'trace-test-client');
    client = new MessagingClient(nc);
  });

  afterAll(async () => {
    await nc?.close();
    await app?.close();
    await nats?.stop();
    await telemetry?.shutdown();
  });

  const req = (url: string) => ({ url, formats: ['markdown' as const], timeout: 1000 });

  it('runs the handler in the trace whose traceparent the NATS message carries, inside a SERVER span named after the subject', async () => {
    exporter.reset();
    const url = 'http://raw.test/';
    const hdrs = natsHeaders();
    hdrs.set('traceparent', `00-${TRACE_ID}-${PARENT_SPAN_ID}-01`);
    const packet = { pattern: SUBJECTS.scrapePage, data: req(url), id: 'raw-1' };
    await nc.request(SUBJECTS.scrapePage, new TextEncoder().encode(JSON.stringify(packet)), {
      timeout: 2000,
      headers: hdrs,
    });
    await telemetry.forceFlush();

    expect(seen.get(url)?.traceId).toBe(TRACE_ID);
    const server = exporter.getFinishedSpans().find((s) => s.name === SUBJECTS.scrapePage);
    expect(server?.kind).toBe(1); // SpanKind.SERVER
    expect(server?.spanContext().traceId).toBe(TRACE_ID);
    expect(server?.parentSpanContext?.spanId).toBe(PARENT_SPAN_ID);
    expect(server?.attributes['messaging.destination.name']).toBe(SUBJECTS.scrapePage);
    expect(seen.get(url)?.spanId).toBe(server?.spanContext().spanId);
  });

  it("continues the MessagingClient caller's trace: caller span -> CLIENT span -> SERVER span, one trace id", async () => {
    exporter.reset();
    const url = 'http://client.test/';
    let callerTraceId = '';
    await traced('caller', async () => {
      callerTraceId = activeTraceIds()?.traceId ?? '';
      await client.send(SUBJECTS.scrapePage, req(url), { timeoutMs: 2000 });
    });
    await telemetry.forceFlush();

    const spans = exporter.getFinishedSpans();
    const caller = spans.find((s) => s.name === 'caller');
    const send = spans.find((s) => s.name === `send ${SUBJECTS.scrapePage}`);
    const server = spans.find((s) => s.name === SUBJECTS.scrapePage);
    expect(callerTraceId).toMatch(/^[0-9a-f]{32}$/);
    expect(seen.get(url)?.traceId).toBe(callerTraceId);
    expect(send?.kind).toBe(2); // SpanKind.CLIENT
    expect(send?.parentSpanContext?.spanId).toBe(caller?.spanContext().spanId);
    expect(server?.parentSpanContext?.spanId).toBe(send?.spanContext().spanId);
    expect(new Set(spans.map((s) => s.spanContext().traceId))).toEqual(new Set([callerTraceId]));
  });

  it('marks the SERVER and CLIENT spans failed when the handler throws, and the caller still gets the TrawlError', async () => {
    exporter.reset();
    await expect(
      client.send(SUBJECTS.scrapePage, req('http://blocked.test/'), { timeoutMs: 2000 }),
    ).rejects.toMatchObject({
      code: 'UPSTREAM_BLOCKED',
    });
    await telemetry.forceFlush();
    const spans = exporter.getFinishedSpans();
    expect(spans.find((s) => s.name === SUBJECTS.scrapePage)?.status.code).toBe(2); // SpanStatusCode.ERROR
    expect(spans.find((s) => s.name === `send ${SUBJECTS.scrapePage}`)?.status.code).toBe(2);
  });

  it('starts a new trace for a message without trace headers', async () => {
    exporter.reset();
    const url = 'http://no-headers.test/';
    const packet = { pattern: SUBJECTS.scrapePage, data: req(url), id: 'raw-2' };
    await nc.request(SUBJECTS.scrapePage, new TextEncoder().encode(JSON.stringify(packet)), { timeout: 2000 });
    await telemetry.forceFlush();
    const server = exporter.getFinishedSpans().find((s) => s.name === SUBJECTS.scrapePage);
    expect(server?.kind).toBe(1); // SpanKind.SERVER
    expect(server?.parentSpanContext).toBeUndefined();
    expect(seen.get(url)?.traceId).toBe(server?.spanContext().traceId);
  });
});

describe('NatsTraceInterceptor with tracing off', () => {
  it('returns the handler’s own observable untouched', () => {
    const handled = of('reply');
    const next: CallHandler = { handle: () => handled };
    const context = { getType: () => 'rpc' } as unknown as ExecutionContext;
    expect(new NatsTraceInterceptor().intercept(context, next)).toBe(handled);
  });
});
