import { randomUUID } from 'node:crypto';
import { errors, headers as natsHeaders, type MsgHdrs, type NatsConnection } from '@nats-io/nats-core';
import { isWireError, TrawlError, type RpcReply, type RpcRequest, type RpcSubject } from '@trawl/contracts';
import { injectTraceHeaders, SpanKind, startSpan } from '@trawl/telemetry';
import type { NatsReplyPacket, NatsRequestPacket } from './nats-packet.js';

export interface SendOptions {
  /** Deadline of the whole request, ms. The caller's `timeout` for synchronous operations. */
  timeoutMs: number;
  /** Extra NATS headers (trace context, request id). */
  headers?: Record<string, string>;
}

/** Observes each request (metrics hook). */
export type RequestObserver = (subject: string, outcome: 'ok' | 'error' | 'timeout' | 'no_responders', ms: number) => void;

const SERVICE_OF_SUBJECT: Record<RpcSubject, string> = {
  'extract.search.v1': 'extractor-search',
  'extract.maps.v1': 'extractor-maps',
  'extract.place.v1': 'extractor-maps',
  'extract.maps-url.v1': 'extractor-maps',
  'extract.retail.v1': 'extractor-retail',
  'scrape.page.v1': 'extractor-scrape',
  'render.page.v1': 'extractor-scrape',
  'task.submit.v1': 'task-service',
  'task.get.v1': 'task-service',
};

/**
 * Typed request/reply over NATS. `send(subject, payload)` takes the payload type and returns the reply type the
 * contract pairs with that subject. A WireError reply becomes a TrawlError; "no responders" (nothing serves the
 * subject) becomes SERVICE_UNAVAILABLE naming the missing service; the deadline becomes UPSTREAM_TIMEOUT.
 */
export class MessagingClient {
  private readonly encoder = new TextEncoder();
  private readonly decoder = new TextDecoder();

  constructor(
    private readonly nc: NatsConnection,
    private readonly observe: RequestObserver = () => undefined,
  ) {}

  async send<S extends RpcSubject>(subject: S, payload: RpcRequest<S>, options: SendOptions): Promise<RpcReply<S>> {
    return this.traced(subject, () => this.request(subject, payload, options, (frame) => frame.response as RpcReply<S>));
  }

  /**
   * Like `send`, but resolves to the reply as JSON text, for a large reply the caller forwards as it is (a batch
   * submission's 4.7 MB): when the frame has the layout Nest's NATS server writes (`{"response":…,"isDisposed":true,
   * "id":"<our id>"}`) the text is cut out of it without parsing; any other frame is parsed as `send` does.
   */
  async sendRaw<S extends RpcSubject>(subject: S, payload: RpcRequest<S>, options: SendOptions): Promise<string> {
    return this.traced(subject, () =>
      this.request(subject, payload, options, (frame) => JSON.stringify(frame.response ?? null), responseText),
    );
  }

  private async traced<T>(subject: RpcSubject, fn: () => Promise<T>): Promise<T> {
    // A CLIENT span per request (a no-op with tracing off); its context is what the headers carry.
    const span = startSpan(`send ${subject}`, {
      kind: SpanKind.CLIENT,
      attributes: { 'messaging.system': 'nats', 'messaging.destination.name': subject, 'messaging.operation.type': 'send' },
    });
    try {
      const reply = await span.run(fn);
      span.end();
      return reply;
    } catch (e) {
      span.end(e);
      throw e;
    }
  }

  private async request<S extends RpcSubject, T>(
    subject: S,
    payload: RpcRequest<S>,
    options: SendOptions,
    read: (frame: NatsReplyPacket<RpcReply<S>>) => T,
    /** A cheaper reading of the frame's text, or undefined to parse it. */
    readText?: (text: string, id: string) => T | undefined,
  ): Promise<T> {
    const packet: NatsRequestPacket<RpcRequest<S>> = { pattern: subject, data: payload, id: randomUUID() };
    // W3C trace context of the caller travels in the NATS headers (none when tracing is off: a message without
    // headers is cheaper to frame and to parse on both sides).
    const carried = { ...injectTraceHeaders(), ...options.headers };
    let hdrs: MsgHdrs | undefined;
    for (const k in carried) (hdrs ??= natsHeaders()).set(k, carried[k]);
    const started = performance.now();
    let reply;
    try {
      reply = await this.nc.request(subject, this.encoder.encode(JSON.stringify(packet)), {
        timeout: options.timeoutMs,
        ...(hdrs ? { headers: hdrs } : {}),
      });
    } catch (e) {
      const ms = performance.now() - started;
      if (isNoResponders(e)) {
        this.observe(subject, 'no_responders', ms);
        throw new TrawlError(
          'SERVICE_UNAVAILABLE',
          `${SERVICE_OF_SUBJECT[subject]} is not deployed or not reachable (no responders on ${subject})`,
          { cause: e },
        );
      }
      if (isTimeout(e)) {
        this.observe(subject, 'timeout', ms);
        throw new TrawlError('UPSTREAM_TIMEOUT', `${SERVICE_OF_SUBJECT[subject]} did not answer within ${options.timeoutMs} ms`, {
          cause: e,
        });
      }
      this.observe(subject, 'error', ms);
      throw new TrawlError('SERVICE_UNAVAILABLE', `messaging failed on ${subject}: ${(e as Error).message}`, { cause: e });
    }
    const text = this.decoder.decode(reply.data);
    const ms = performance.now() - started;
    const cheap = readText?.(text, packet.id);
    if (cheap !== undefined) {
      this.observe(subject, 'ok', ms);
      return cheap;
    }
    const frame = JSON.parse(text) as NatsReplyPacket<RpcReply<S>>;
    if (frame.err !== undefined && frame.err !== null) {
      this.observe(subject, 'error', ms);
      if (isWireError(frame.err)) throw TrawlError.fromWire(frame.err);
      throw new TrawlError('INTERNAL', `${SERVICE_OF_SUBJECT[subject]} failed without a known error code`);
    }
    this.observe(subject, 'ok', ms);
    return read(frame);
  }
}

const RESPONSE_PREFIX = '{"response":';

/** The text of `response` in a success frame laid out as Nest's NATS server writes it, else undefined. */
export function responseText(text: string, id: string): string | undefined {
  const suffix = `,"isDisposed":true,"id":${JSON.stringify(id)}}`;
  if (!text.startsWith(RESPONSE_PREFIX) || !text.endsWith(suffix)) return undefined;
  return text.slice(RESPONSE_PREFIX.length, text.length - suffix.length);
}

function isNoResponders(e: unknown): boolean {
  if (e instanceof errors.RequestError) return e.isNoResponders();
  return e instanceof errors.NoRespondersError;
}

function isTimeout(e: unknown): boolean {
  return e instanceof errors.TimeoutError || (e instanceof Error && e.cause instanceof errors.TimeoutError);
}
