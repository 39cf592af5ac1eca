import { describe, expect, it } from '@jest/globals';
import { trace } from '@opentelemetry/api';
import { isTelemetryEnabled, startTelemetry } from './telemetry.bootstrap.js';
import { activeTraceIds, injectTraceHeaders, startSpan, traced, tracingActive } from './trace-context.util.js';

describe('startTelemetry when tracing is not configured', () => {
  it('starts nothing: no tracer provider is registered, spans are no-ops and no trace headers are produced', async () => {
    const telemetry = await startTelemetry({ serviceName: 'unit-test', env: {} });

    expect(telemetry.enabled).toBe(false);
    let headers: Record<string, string> = { stale: 'x' };
    await traced('noop', async () => {
      headers = injectTraceHeaders();
      expect(
        trace.isSpanContextValid(trace.getActiveSpan()?.spanContext() ?? { traceId: '', spanId: '', traceFlags: 0 }),
      ).toBe(false);
    });
    expect(headers).toEqual({});
    await expect(telemetry.shutdown()).resolves.toBeUndefined();
  });

  it('startSpan and traced just call through: no span, no ids, the same value back', async () => {
    await startTelemetry({ serviceName: 'unit-test', env: {} });
    expect(tracingActive()).toBe(false);
    const span = startSpan('off', {
      parent: { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' },
    });
    expect(span.run(() => activeTraceIds())).toBeUndefined();
    expect(() => span.end(new Error('x'))).not.toThrow();
    await expect(traced('off', () => 7)).resolves.toBe(7);
  });

  it.each([
    [{}, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, true],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }, true],
    [{ OTEL_TRACES_EXPORTER: 'console' }, true],
    [{ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, false],
    [{ OTEL_SDK_DISABLED: 'true', OTEL_TRACES_EXPORTER: 'otlp' }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' }, false],
  ])('decides on/off from the OTEL_* switches: %j -> %s', (env, expected) => {
    expect(isTelemetryEnabled(env)).toBe(expected);
  });

  it('honours OTEL_SDK_DISABLED=true even when a test exporter is passed', () => {
    expect(isTelemetryEnabled({ OTEL_SDK_DISABLED: 'true' }, true)).toBe(false);
    expect(isTelemetryEnabled({}, true)).toBe(true);
  });
});
