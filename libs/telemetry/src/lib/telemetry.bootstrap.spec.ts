import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { createLogger } from './logger.factory.js';
import { startTelemetry, type Telemetry } from './telemetry.bootstrap.js';
import {
  activeTraceIds,
  injectTraceHeaders,
  startSpan,
  traced,
  tracingActive,
  withExtractedContext,
} from './trace-context.util.js';

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/;

describe('startTelemetry with an in-memory exporter', () => {
  const exporter = new InMemorySpanExporter();
  let telemetry: Telemetry;

  beforeAll(async () => {
    telemetry = await startTelemetry({
      serviceName: 'unit-test',
      env: {},
      spanExporter: exporter,
      instrumentations: false,
    });
  });
  afterAll(async () => {
    await telemetry.shutdown();
  });

  it('is enabled and sends finished spans, named and attributed to the service, to the exporter', async () => {
    exporter.reset();
    const result = await traced('unit.work', async () => 42, { attributes: { 'trawl.test': true } });
    await telemetry.forceFlush();

    expect(telemetry.enabled).toBe(true);
    expect(result).toBe(42);
    const [span] = exporter.getFinishedSpans();
    expect(span?.name).toBe('unit.work');
    expect(span?.attributes['trawl.test']).toBe(true);
    expect(span?.resource.attributes['service.name']).toBe('unit-test');
  });

  it('records a thrown error on the span as an error status and rethrows it', async () => {
    exporter.reset();
    await expect(traced('unit.fails', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await telemetry.forceFlush();
    const [span] = exporter.getFinishedSpans();
    expect(span?.status).toEqual({ code: 2, message: 'boom' });
    expect(span?.events.map((e) => e.name)).toContain('exception');
  });

  it('round-trips the trace context through a header record: the remote span is the parent of the next one', async () => {
    exporter.reset();
    let headers: Record<string, string> = {};
    await traced('producer', async () => {
      headers = injectTraceHeaders();
    });
    await withExtractedContext(headers, () => traced('consumer', async () => undefined));
    await telemetry.forceFlush();

    const producer = exporter.getFinishedSpans().find((s) => s.name === 'producer');
    const consumer = exporter.getFinishedSpans().find((s) => s.name === 'consumer');
    const [, traceId, spanId] = TRACEPARENT.exec(headers['traceparent'] ?? '') ?? [];
    expect(traceId).toBe(producer?.spanContext().traceId);
    expect(spanId).toBe(producer?.spanContext().spanId);
    expect(consumer?.spanContext().traceId).toBe(traceId);
    expect(consumer?.parentSpanContext?.spanId).toBe(spanId);
  });

  it('reads the trace context from a NATS-style header bag (get/keys) and from upper-case HTTP header names', async () => {
    exporter.reset();
    let headers: Record<string, string> = {};
    await traced('producer', async () => {
      headers = injectTraceHeaders();
    });
    const bag = new Map(Object.entries(headers));
    const natsLike = { get: (k: string) => bag.get(k) ?? '', keys: () => bag.keys() };
    await withExtractedContext(natsLike, () => traced('from-nats', async () => undefined));
    await withExtractedContext({ TraceParent: headers['traceparent'] }, () =>
      traced('from-http', async () => undefined),
    );
    await telemetry.forceFlush();

    const producerId = exporter
      .getFinishedSpans()
      .find((s) => s.name === 'producer')
      ?.spanContext().spanId;
    for (const name of ['from-nats', 'from-http']) {
      expect(exporter.getFinishedSpans().find((s) => s.name === name)?.parentSpanContext?.spanId).toBe(producerId);
    }
  });

  it('startSpan: a child of the carried context, active inside run(), ended once (a later end is ignored)', async () => {
    exporter.reset();
    const parent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const span = startSpan('long.work', { parent: { traceparent: parent } });
    const inside = await span.run(async () => {
      await new Promise((r) => setTimeout(r, 1));
      return activeTraceIds();
    });
    span.end(new Error('late failure'));
    span.end();
    await telemetry.forceFlush();

    expect(tracingActive()).toBe(true);
    const spans = exporter.getFinishedSpans();
    expect(spans).toHaveLength(1);
    expect(inside).toEqual({ traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: spans[0]?.spanContext().spanId });
    expect(spans[0]?.parentSpanContext?.spanId).toBe('00f067aa0ba902b7');
    expect(spans[0]?.status).toEqual({ code: 2, message: 'late failure' });
  });

  it('puts the active span ids on log lines as trace_id and span_id', async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = createLogger({
      service: 'unit-test',
      destination: { write: (s: string) => void lines.push(JSON.parse(s)) },
    });
    let ids = { traceId: '', spanId: '' };
    await traced('logging', async () => {
      const headers = injectTraceHeaders();
      const [, traceId = '', spanId = ''] = TRACEPARENT.exec(headers['traceparent'] ?? '') ?? [];
      ids = { traceId, spanId };
      logger.info('inside a span');
    });
    logger.info('outside');

    expect(lines[0]).toMatchObject({ msg: 'inside a span', trace_id: ids.traceId, span_id: ids.spanId });
    expect(lines[1]).not.toHaveProperty('trace_id');
  });
});
