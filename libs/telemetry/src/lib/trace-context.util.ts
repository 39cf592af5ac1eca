import {
  context,
  propagation,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type TextMapGetter,
} from '@opentelemetry/api';

let tracingOn = false;

/** True once `startTelemetry` started the SDK in this process (false again after its shutdown). */
export function tracingActive(): boolean {
  return tracingOn;
}

/** @internal Called by `startTelemetry` only. */
export function setTracingActive(on: boolean): void {
  tracingOn = on;
}

/**
 * Where trace headers can be read from: a plain record (HTTP headers, BullMQ job data, a webhook's headers) or a
 * header bag with `get`/`keys` (NATS `MsgHdrs`).
 */
export type TraceCarrier =
  | Readonly<Record<string, string | readonly string[] | undefined>>
  | { get(key: string): string | undefined; keys(): Iterable<string> };

function isHeaderBag(c: TraceCarrier): c is { get(key: string): string | undefined; keys(): Iterable<string> } {
  return typeof (c as { get?: unknown }).get === 'function' && typeof (c as { keys?: unknown }).keys === 'function';
}

const getter: TextMapGetter<TraceCarrier> = {
  keys(carrier) {
    return isHeaderBag(carrier) ? [...carrier.keys()] : Object.keys(carrier);
  },
  get(carrier, key) {
    if (isHeaderBag(carrier)) return carrier.get(key) || undefined;
    const lower = key.toLowerCase();
    const found = Object.keys(carrier).find((k) => k.toLowerCase() === lower);
    const value = found === undefined ? undefined : carrier[found];
    return typeof value === 'string' ? value : value?.[0];
  },
};

/**
 * The W3C trace context (`traceparent`, `tracestate`, `baggage`) of the current span, as headers to put on an
 * outgoing NATS message, a BullMQ job's data or the webhook POST. Empty when tracing is off or no span is active.
 */
export function injectTraceHeaders(ctx: Context = context.active()): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(ctx, carrier);
  return carrier;
}

/** Runs `fn` with the trace context carried in `headers` as the active context (a no-op without a traceparent). */
export function withExtractedContext<T>(headers: TraceCarrier | undefined, fn: () => T): T {
  if (!headers) return fn();
  return context.with(propagation.extract(context.active(), headers, getter), fn);
}

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Attributes;
}

/**
 * Runs `fn` inside a new active span named `name`; records a thrown error on the span and rethrows it. With tracing
 * off the span is a no-op and costs next to nothing.
 */
export async function traced<T>(name: string, fn: () => Promise<T> | T, options: SpanOptions = {}): Promise<T> {
  if (!tracingOn) return fn();
  const tracer = trace.getTracer('@trawl/telemetry');
  return tracer.startActiveSpan(
    name,
    { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes },
    async (span) => {
      try {
        return await fn();
      } catch (error) {
        span.recordException(error instanceof Error ? error : String(error));
        span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
        throw error;
      } finally {
        span.end();
      }
    },
  );
}

/** A span started by `startSpan`: run work inside it, then end it once. */
export interface StartedSpan {
  /** Runs `fn` with this span as the active span. */
  run<T>(fn: () => T): T;
  /** Ends the span; an error marks it failed. Later calls do nothing. */
  end(error?: unknown): void;
}

const NOOP_SPAN: StartedSpan = { run: (fn) => fn(), end: () => undefined };

/**
 * Starts a span that outlives one function call (an Observable, a stream), as a child of the trace context carried in
 * `parent` (NATS headers, job data) or else of the active context. With tracing off it returns a shared no-op.
 */
export function startSpan(name: string, options: SpanOptions & { parent?: TraceCarrier } = {}): StartedSpan {
  if (!tracingOn) return NOOP_SPAN;
  const parent = options.parent ? propagation.extract(context.active(), options.parent, getter) : context.active();
  const span = trace
    .getTracer('@trawl/telemetry')
    .startSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes }, parent);
  const active = trace.setSpan(parent, span);
  let ended = false;
  return {
    run: (fn) => context.with(active, fn),
    end: (error) => {
      if (ended) return;
      ended = true;
      if (error !== undefined) {
        span.recordException(error instanceof Error ? error : String(error));
        span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
      }
      span.end();
    },
  };
}

/** The active span's ids, for log lines; undefined when there is no valid span (tracing off). */
export function activeTraceIds(): { traceId: string; spanId: string } | undefined {
  const span = trace.getActiveSpan();
  if (!span) return undefined;
  const spanContext = span.spanContext();
  if (!trace.isSpanContextValid(spanContext)) return undefined;
  return { traceId: spanContext.traceId, spanId: spanContext.spanId };
}

export { SpanKind };
