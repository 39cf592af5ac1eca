import { context, propagation, trace } from '@opentelemetry/api';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { TelemetrySwitches } from './telemetry.env.js';
import { setTracingActive } from './trace-context.util.js';
import { redactSpanUrls, redactUrlSecrets } from './url-secrets.util.js';

export interface StartTelemetryOptions {
  /** `service.name` of every span (e.g. `gateway`, `extractor-scrape`); OTEL_SERVICE_NAME overrides it. */
  serviceName: string;
  serviceVersion?: string;
  /** The OTEL_* switches, normally `loadEnv(TelemetryEnv)`. */
  env: TelemetrySwitches;
  /**
   * Send spans here instead of the exporter the OTEL_* variables name (tests: `InMemorySpanExporter`). Passing one
   * turns tracing on even when the environment does not.
   */
  spanExporter?: SpanExporter;
  /** Load the HTTP, undici and ioredis auto-instrumentations (default true; tests switch them off). */
  instrumentations?: boolean;
}

/** A started (or deliberately not started) telemetry SDK. */
export interface Telemetry {
  readonly enabled: boolean;
  /** Exports every finished span now. */
  forceFlush(): Promise<void>;
  /** Flushes and stops the SDK; call it on shutdown (after the app has closed). */
  shutdown(): Promise<void>;
}

/** Incoming requests that should never become spans: probes and scrapes. */
const UNTRACED_PATHS = ['/health/live', '/health/ready', '/metrics'];

/**
 * Tracing is on only when asked for: an exporter or an OTLP endpoint is configured, and OTEL_SDK_DISABLED is not
 * `true`. Off means off: the SDK is never even imported.
 */
export function isTelemetryEnabled(env: TelemetrySwitches, hasExporter = false): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  if (hasExporter) return true;
  const exporter = env.OTEL_TRACES_EXPORTER?.trim().toLowerCase();
  if (exporter) return exporter !== 'none';
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

const DISABLED: Telemetry = {
  enabled: false,
  forceFlush: async () => undefined,
  shutdown: async () => undefined,
};

/**
 * Starts OpenTelemetry tracing for this process, or does nothing at all when it is not configured.
 *
 * The repo is ESM: instrumentation can only patch modules loaded after this resolves. Call it from `main.ts` before
 * the app module is imported, and import the app dynamically afterwards (see the README).
 */
export async function startTelemetry(options: StartTelemetryOptions): Promise<Telemetry> {
  if (!isTelemetryEnabled(options.env, options.spanExporter !== undefined)) return DISABLED;

  const withInstrumentations = options.instrumentations ?? true;
  const waitForHooks = withInstrumentations ? await registerEsmHooks() : async () => undefined;

  const [{ NodeSDK }, { SimpleSpanProcessor }, { resourceFromAttributes }, semconv] = await Promise.all([
    import('@opentelemetry/sdk-node'),
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/semantic-conventions'),
  ]);

  const serviceName = options.env.OTEL_SERVICE_NAME?.trim() || options.serviceName;
  const resource = resourceFromAttributes({
    [semconv.ATTR_SERVICE_NAME]: serviceName,
    ...(options.serviceVersion ? { [semconv.ATTR_SERVICE_VERSION]: options.serviceVersion } : {}),
  });

  const sdk = new NodeSDK({
    serviceName,
    resource,
    ...(options.spanExporter ? { spanProcessors: [new SimpleSpanProcessor(options.spanExporter)] } : {}),
    instrumentations: withInstrumentations ? await loadInstrumentations() : [],
  });
  sdk.start();
  await waitForHooks();
  setTracingActive(true);

  let stopped = false;
  return {
    enabled: true,
    forceFlush: async () => {
      // The SDK registers its tracer provider behind the API's proxy; flushing it drains every span processor.
      const proxy = trace.getTracerProvider() as { getDelegate?: () => { forceFlush?: () => Promise<void> } };
      await proxy.getDelegate?.().forceFlush?.();
    },
    shutdown: async () => {
      if (stopped) return;
      stopped = true;
      setTracingActive(false);
      await sdk.shutdown();
      // Release the global registrations so a later start (tests) can register again.
      trace.disable();
      propagation.disable();
      context.disable();
    },
  };
}

/**
 * ESM modules are patched by import-in-the-middle's loader hook. Register it for the hooked modules only (the
 * instrumentations announce them over a message channel), so every other import is left alone.
 */
async function registerEsmHooks(): Promise<() => Promise<void>> {
  const [{ register }, { createAddHookMessageChannel }] = await Promise.all([
    import('node:module'),
    import('import-in-the-middle'),
  ]);
  const { registerOptions, waitForAllMessagesAcknowledged } = createAddHookMessageChannel();
  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url, registerOptions);
  return waitForAllMessagesAcknowledged;
}

async function loadInstrumentations() {
  const [{ HttpInstrumentation }, { UndiciInstrumentation }, { IORedisInstrumentation }] = await Promise.all([
    import('@opentelemetry/instrumentation-http'),
    import('@opentelemetry/instrumentation-undici'),
    import('@opentelemetry/instrumentation-ioredis'),
  ]);
  return [
    new HttpInstrumentation({
      ignoreIncomingRequestHook: (req) => UNTRACED_PATHS.some((p) => (req.url ?? '').split('?')[0] === p),
      // A query may carry a key (SerpAPI's api_key): the span's URL attributes get it redacted.
      requestHook: (span, req) => {
        const url = 'url' in req && typeof req.url === 'string' ? req.url : undefined;
        if (url === undefined || !url.includes('?')) return;
        const redacted = redactUrlSecrets(url);
        if (redacted === url) return;
        const attributes = (span as unknown as { attributes?: Record<string, unknown> }).attributes ?? {};
        redactSpanUrls(span, { ...attributes, 'http.target': url, 'url.query': url.slice(url.indexOf('?') + 1) });
      },
    }),
    // A request that already carries a traceparent (the webhook POST, traced by its sender) gets no second one.
    new UndiciInstrumentation({ ignoreRequestHook: (req) => hasTraceparent(req.headers) }),
    new IORedisInstrumentation({ requireParentSpan: true }),
  ];
}

/** Whether undici request headers (a raw header string, or a flat name/value array) include `traceparent`. */
export function hasTraceparent(headers: string | readonly unknown[] | undefined): boolean {
  if (typeof headers === 'string') return /(^|\r\n)traceparent:/i.test(headers);
  if (!Array.isArray(headers)) return false;
  for (let i = 0; i < headers.length; i += 2) {
    if (String(headers[i]).toLowerCase() === 'traceparent') return true;
  }
  return false;
}
