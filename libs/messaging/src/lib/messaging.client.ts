import { randomUUID } from 'node:crypto';
import { errors, headers as natsHeaders, type MsgHdrs, type NatsConnection } from '@nats-io/nats-core';
import {
  hearsBroadcast,
  isWireError,
  SUBJECTS,
  subjectRow,
  TrawlError,
  type RpcReply,
  type RpcRequest,
  type RpcSubject,
  type ServiceName,
} from '@trawl/contracts';
import { injectTraceHeaders, SpanKind, startSpan } from '@trawl/telemetry';
import { REPLICA_BUSY_HEADER, REPLICA_SHUT_DOWN_HEADER } from './draining-nats.server.js';
import type { NatsReplyPacket, NatsRequestPacket } from './nats-packet.types.js';
import { ABANDON_KEY_HEADER } from './request-abandons.store.js';

export interface SendOptions {
  /** Deadline of the whole request, ms. The caller's `timeout` for synchronous operations. */
  timeoutMs: number;
  /**
   * How long "no responders" is ridden out: the request is sent again, with a short backoff, until something serves
   * the subject or this long has passed (never past the deadline). Default: the whole deadline, so a synchronous call
   * survives a rolling update or an extractor's restart. The task workers pass a short one: they pause instead.
   */
  rideOutMs?: number;
  /** Extra NATS headers (trace context, request id). */
  headers?: Record<string, string>;
  /**
   * The caller stops waiting when this aborts (ADR 0043). If the subject's server hears `extract.abandon.v1`, the
   * request carries ABANDON_KEY_HEADER and, on abort, the notice naming it is published, so the replica running it
   * stops. Whatever the subject, a send whose signal aborted sends no more (no busy or "no responders" retry).
   */
  abandon?: AbortSignal;
}

/** Observes each request (metrics hook). */
export type RequestObserver = (
  subject: string,
  outcome: 'ok' | 'error' | 'timeout' | 'no_responders',
  ms: number,
) => void;

/** First and largest pause between two sends of a request that met "no responders", ms. */
export const NO_RESPONDERS_BACKOFF_MS = { first: 25, max: 500 } as const;

/**
 * SERVICE_UNAVAILABLE because the infrastructure is not there (nothing serves the subject, the NATS connection was
 * lost while the request waited, the replica that took the request shut down before it finished: `shut_down`, or
 * every replica asked was at its in-flight cap until the deadline: `busy`),
 * as opposed to an extractor that answered SERVICE_UNAVAILABLE itself. The task workers do not count these as
 * attempts.
 */
export class FleetUnavailableError extends TrawlError {
  constructor(
    readonly subject: RpcSubject,
    readonly reason: 'no_responders' | 'disconnected' | 'shut_down' | 'busy',
    message: string,
    cause: unknown,
  ) {
    super('SERVICE_UNAVAILABLE', message, { cause });
    this.name = 'FleetUnavailableError';
  }
}

/** The service that serves `subject` (for messages naming what is missing): its row's `servedBy` (SUBJECT_TABLE). */
export function serviceOfSubject(subject: RpcSubject): string {
  const row = subjectRow(subject);
  return row?.kind === 'rpc' ? row.servedBy : 'nothing';
}

/**
 * Typed request/reply over NATS. `send(subject, payload)` takes the payload type and returns the reply type the
 * contract pairs with that subject. A WireError reply becomes a TrawlError; "no responders" (nothing serves the
 * subject) becomes SERVICE_UNAVAILABLE naming the missing service; the deadline becomes UPSTREAM_TIMEOUT.
 */
export class MessagingClient {
  private readonly encoder = new TextEncoder();
  private readonly decoder = new TextDecoder();
  /** Connection losses seen so far: a request that spans one lost its reply to the outage, not to the callee. */
  private disconnects = 0;
  /** Sends repeated because a replica answered it was at its in-flight cap (REPLICA_BUSY_HEADER). */
  busyRetries = 0;
  private linkUp = true;

  constructor(
    private readonly nc: NatsConnection,
    private readonly observe: RequestObserver = () => undefined,
    private readonly options: { caller?: ServiceName } = {},
  ) {
    void (async () => {
      for await (const s of nc.status()) {
        if (s.type === 'disconnect') {
          this.disconnects += 1;
          this.linkUp = false;
        } else if (s.type === 'reconnect') this.linkUp = true;
      }
    })().catch(() => undefined);
  }

  /**
   * Whether anything serves `subject` now: one request whose "no responders" status answers no. The request carries
   * no valid payload, so a responder answers it at once with a validation error (or not at all): both mean yes. A lost
   * NATS connection means no.
   */
  async probe(subject: RpcSubject, timeoutMs = 1000): Promise<boolean> {
    this.checkCaller(subject);
    if (!this.linkUp || this.nc.isClosed()) return false;
    const packet = { pattern: subject, data: {}, id: `probe-${randomUUID()}` };
    try {
      await this.nc.request(subject, this.encoder.encode(JSON.stringify(packet)), { timeout: timeoutMs });
      return true;
    } catch (e) {
      if (isNoResponders(e)) return false;
      return this.linkUp && isTimeout(e);
    }
  }

  async send<S extends RpcSubject>(subject: S, payload: RpcRequest<S>, options: SendOptions): Promise<RpcReply<S>> {
    this.checkCaller(subject);
    return this.traced(subject, () =>
      this.request(subject, payload, options, (frame) => frame.response as RpcReply<S>),
    );
  }

  /**
   * Like `send`, but resolves to the reply as JSON text, for a reply the caller forwards as it is (a batch
   * submission's 4.7 MB job list, a search's results). A reply laid out as Nest's NATS server lays a success out
   * (`responseJsonOf`) has its `response` cut out of the text, neither parsed nor serialised again; any other
   * layout is read as `send` reads it (`{ response | err }`) and `response` serialised again, so the outcome does not
   * depend on the layout.
   */
  async sendRaw<S extends RpcSubject>(subject: S, payload: RpcRequest<S>, options: SendOptions): Promise<string> {
    this.checkCaller(subject);
    return this.traced(subject, () =>
      this.request(subject, payload, options, (frame) => JSON.stringify(frame.response ?? null), responseJsonOf),
    );
  }

  /**
   * Whether a request on `subject` can be abandoned: its server hears `extract.abandon.v1`. A caller that may not
   * publish the notice (its row does not list it among the publishers) is refused, as `checkCaller` refuses.
   */
  private abandonable(subject: RpcSubject): boolean {
    const row = subjectRow(subject);
    if (row?.kind !== 'rpc') return false;
    if (!hearsBroadcast(row.servedBy, SUBJECTS.extractAbandon)) return false;
    const { caller } = this.options;
    const notice = subjectRow(SUBJECTS.extractAbandon);
    if (caller && notice?.kind === 'broadcast' && !notice.publishers.includes(caller))
      throw new TrawlError(
        'INTERNAL',
        `${caller} may not abandon ${subject}: not among the publishers of ${notice.subject}`,
      );
    return true;
  }

  /** Tells every replica of the subject's server that the request `requestId` is abandoned (ADR 0043). */
  private publishAbandon(requestId: string): void {
    try {
      this.nc.publish(SUBJECTS.extractAbandon, this.encoder.encode(JSON.stringify({ requestId })));
    } catch {
      // The connection is gone: the request runs on to its own deadline, as before abandons existed.
    }
  }

  /** Refuses a subject the calling service may not send (its row does not list it among the callers). */
  private checkCaller(subject: RpcSubject): void {
    const { caller } = this.options;
    if (!caller) return;
    const row = subjectRow(subject);
    if (row?.kind === 'rpc' && row.callers.includes(caller)) return;
    throw new TrawlError('INTERNAL', `${caller} may not call ${subject}: not among its callers in SUBJECT_TABLE`);
  }

  private async traced<T>(subject: RpcSubject, fn: () => Promise<T>): Promise<T> {
    // A CLIENT span per request (a no-op with tracing off); its context is what the headers carry.
    const span = startSpan(`send ${subject}`, {
      kind: SpanKind.CLIENT,
      attributes: {
        'messaging.system': 'nats',
        'messaging.destination.name': subject,
        'messaging.operation.type': 'send',
      },
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
    readText?: (text: string, id: string) => T | undefined,
  ): Promise<T> {
    const packet: NatsRequestPacket<RpcRequest<S>> = { pattern: subject, data: payload, id: randomUUID() };
    // W3C trace context of the caller travels in the NATS headers (none when tracing is off: a message without
    // headers is cheaper to frame and to parse on both sides).
    const abandon = options.abandon;
    const abandonable = abandon !== undefined && this.abandonable(subject);
    const carried: Record<string, string> = {
      ...injectTraceHeaders(),
      ...options.headers,
      ...(abandonable ? { [ABANDON_KEY_HEADER]: packet.id } : {}),
    };
    let hdrs: MsgHdrs | undefined;
    for (const k in carried) (hdrs ??= natsHeaders()).set(k, carried[k]);
    const started = performance.now();
    const data = this.encoder.encode(JSON.stringify(packet));
    const rideOutMs = Math.min(options.rideOutMs ?? options.timeoutMs, options.timeoutMs);
    const disconnectsBefore = this.disconnects;
    let sawNoResponders = false;
    let reply;
    const onAbandon = () => this.publishAbandon(packet.id);
    if (abandonable) abandon.addEventListener('abort', onAbandon, { once: true });
    try {
      for (
        let pause: number = NO_RESPONDERS_BACKOFF_MS.first;
        ;
        pause = Math.min(2 * pause, NO_RESPONDERS_BACKOFF_MS.max)
      ) {
        if (abandon?.aborted) throw abandonedError(subject, abandon);
        const left = options.timeoutMs - (performance.now() - started);
        try {
          reply = await this.nc.request(subject, data, {
            timeout: Math.max(1, Math.round(left)),
            ...(hdrs ? { headers: hdrs } : {}),
          });
          // A replica at its in-flight cap refused it at once: send it again (the queue group picks anew) while time is left.
          if (reply.headers?.get(REPLICA_BUSY_HEADER) && performance.now() - started + pause < options.timeoutMs) {
            this.busyRetries += 1;
            await new Promise((r) => setTimeout(r, pause));
            continue;
          }
          break;
        } catch (e) {
          const ms = performance.now() - started;
          // "No responders" comes back at once: while the ride-out lasts, wait a little and ask again.
          if (isNoResponders(e) && ms + pause < rideOutMs) {
            sawNoResponders = true;
            await new Promise((r) => setTimeout(r, pause));
            continue;
          }
          // The last send of a ride-out may run out of time before its "no responders" comes back: still no responders.
          const cause = sawNoResponders && isTimeout(e) ? new errors.NoRespondersError(subject) : e;
          throw this.failure(subject, cause, ms, options, disconnectsBefore);
        }
      }
    } finally {
      if (abandonable) abandon.removeEventListener('abort', onAbandon);
    }
    const text = this.decoder.decode(reply.data);
    const ms = performance.now() - started;
    const fast = readText?.(text, packet.id);
    if (fast !== undefined) {
      this.observe(subject, 'ok', ms);
      return fast;
    }
    const frame = JSON.parse(text) as NatsReplyPacket<RpcReply<S>>;
    if (frame.err !== undefined && frame.err !== null) {
      this.observe(subject, 'error', ms);
      // The replica went away with the request unfinished (DrainingNatsServer's grace period ran out): the fleet's
      // doing, not the request's, and said at once rather than after the whole deadline.
      if (reply.headers?.get(REPLICA_BUSY_HEADER)) {
        const message = `every ${serviceOfSubject(subject)} replica asked was at its in-flight cap on ${subject}`;
        throw new FleetUnavailableError(subject, 'busy', message, frame.err);
      }
      if (reply.headers?.get(REPLICA_SHUT_DOWN_HEADER)) {
        const message = `${serviceOfSubject(subject)} shut down before it finished the request on ${subject}`;
        throw new FleetUnavailableError(subject, 'shut_down', message, frame.err);
      }
      if (isWireError(frame.err)) throw TrawlError.fromWire(frame.err);
      throw new TrawlError('INTERNAL', `${serviceOfSubject(subject)} failed without a known error code`);
    }
    this.observe(subject, 'ok', ms);
    return read(frame);
  }

  /** The TrawlError of a request that got no reply. */
  private failure(
    subject: RpcSubject,
    e: unknown,
    ms: number,
    options: SendOptions,
    disconnectsBefore: number,
  ): TrawlError {
    const service = serviceOfSubject(subject);
    if (isNoResponders(e)) {
      this.observe(subject, 'no_responders', ms);
      const message = `${service} is not deployed or not reachable (no responders on ${subject})`;
      return new FleetUnavailableError(subject, 'no_responders', message, e);
    }
    // The connection was lost while the request waited: its reply (if any) went with it.
    if (!this.linkUp || this.disconnects !== disconnectsBefore) {
      this.observe(subject, 'error', ms);
      const message = `the NATS connection was lost during the request on ${subject}`;
      return new FleetUnavailableError(subject, 'disconnected', message, e);
    }
    if (isTimeout(e)) {
      this.observe(subject, 'timeout', ms);
      return new TrawlError('UPSTREAM_TIMEOUT', `${service} did not answer within ${options.timeoutMs} ms`, {
        cause: e,
      });
    }
    this.observe(subject, 'error', ms);
    const message = `messaging failed on ${subject}: ${(e as Error).message}`;
    // A closed or draining connection is infrastructure, not the callee; anything else (a payload too large) is not.
    if (isConnectionGone(e)) return new FleetUnavailableError(subject, 'disconnected', message, e);
    return new TrawlError('SERVICE_UNAVAILABLE', message, { cause: e });
  }
}

/** The error of a send whose caller abandoned it before a reply came: the signal's reason when it is an error. */
function abandonedError(subject: string, signal: AbortSignal): Error {
  if (signal.reason instanceof Error) return signal.reason;
  return new TrawlError('INTERNAL', `the request on ${subject} was abandoned by its caller`, { retryable: false });
}

const RESPONSE_PREFIX = '{"response":';

/**
 * The `response` member of a reply frame laid out as Nest's NATS server lays out a success,
 * `{"response":…,"isDisposed":true,"id":"<the request's id>"}`, cut out of the text without parsing; undefined for
 * any other layout (an error, `{"err":…}`, included). Nest's publisher sends either `response` or `err`, never both.
 */
export function responseJsonOf(text: string, id: string): string | undefined {
  const suffix = `,"isDisposed":true,"id":${JSON.stringify(id)}}`;
  if (text.length <= RESPONSE_PREFIX.length + suffix.length) return undefined;
  if (!text.startsWith(RESPONSE_PREFIX) || !text.endsWith(suffix)) return undefined;
  return text.slice(RESPONSE_PREFIX.length, -suffix.length);
}

function isNoResponders(e: unknown): boolean {
  if (e instanceof errors.RequestError) return e.isNoResponders();
  return e instanceof errors.NoRespondersError;
}

function isConnectionGone(e: unknown): boolean {
  return (
    e instanceof errors.ClosedConnectionError ||
    e instanceof errors.DrainingConnectionError ||
    e instanceof errors.ConnectionError ||
    (e instanceof Error && isConnectionGone(e.cause))
  );
}

function isTimeout(e: unknown): boolean {
  return e instanceof errors.TimeoutError || (e instanceof Error && e.cause instanceof errors.TimeoutError);
}
