import { describe, expect, it } from '@jest/globals';
import { trace } from '@opentelemetry/api';
import { isTelemetryEnabled, startTelemetry } from './start-telemetry.js';
import { injectTraceHeaders, traced } from './trace-context.js';

describe('startTelemetry when tracing is not configured', () => {
  it('starts nothing: no tracer provider is registered, spans are no-ops and no trace headers are produced', async () => {
    const telemetry = await startTelemetry({ serviceName: 'unit-test', env: {} });

    expect(telemetry.enabled).toBe(false);
    let headers: Record<string, string> = { stale: 'x' };
    await traced('noop', async () => {
      headers = injectTraceHeaders();
      expect(trace.isSpanContextValid(trace.getActiveSpan()?.spanContext() ?? { traceId: '', spanId: '', traceFlags: 0 })).toBe(false);
    });
    expect(headers).toEqual({});
    await expect(telemetry.shutdown()).resolves.toBeUndefined();
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
