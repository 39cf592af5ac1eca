import { ServerNats, type NatsContext, type NatsOptions } from '@nestjs/microservices';
import { headers as natsHeaders, type Msg, type NatsConnection, type Subscription } from '@nats-io/nats-core';
import {
  hearsBroadcast,
  SERVICE_NAMES,
  SUBJECT_TABLE,
  subjectsServedBy,
  TrawlError,
  type ServiceName,
  type WireError,
} from '@trawl/contracts';
import { ABANDON_KEY_HEADER, RequestAbandons, withAbandonSignal } from './request-abandons.store.js';

type ServerOptions = Required<NatsOptions>['options'];

/**
 * NATS header on the reply a replica sends, as it closes, to a request it had taken but could not finish within its
 * grace period: the request met a replica going away, not a failure of its own (MessagingClient answers it as
 * FleetUnavailableError, reason `shut_down`, which the task workers do not count as an attempt).
 */
export const REPLICA_SHUT_DOWN_HEADER = 'Trawl-Replica-Shut-Down';

/**
 * NATS header on the SERVICE_UNAVAILABLE a replica answers at once, without running the handler, when it already
 * handles its `maxInFlight` requests: MessagingClient sends the request again (the queue group picks a replica anew),
 * within the request's deadline.
 */
export const REPLICA_BUSY_HEADER = 'Trawl-Replica-Busy';

/**
 * Nest's NATS server with two changes. `listen()` resolves only once the NATS server holds the subscriptions (one
 * flush round trip; Nest's resolves when they are written to the socket, so a request sent right after on another
 * connection could meet "no responders", and a readiness probe could say ready too early). And a shutdown that
 * waits for the work, not for the clock: on close it drains its subscriptions (the NATS server stops routing to
 * this replica, and a request already on its way here is still handled rather than dropped; new requests go to
 * the other replicas of the queue group, or meet "no responders"), waits until every request being handled has
 * sent its reply, at most `gracePeriodMs`, flushes the replies, and closes. A request still unanswered when the grace
 * period runs out is answered SERVICE_UNAVAILABLE (marked REPLICA_SHUT_DOWN_HEADER) before the connection closes:
 * its caller learns at once that the replica went away instead of waiting out its whole deadline for a reply that
 * can no longer come. Nest's own graceful shutdown sleeps the whole grace period even when idle, and drops any reply
 * still running when it ends (its callers wait out their deadlines).
 *
 * A service that hears `extract.abandon.v1` (its row's subscribers, ADR 0043) also subscribes to it, outside its queue
 * group: a request that carried ABANDON_KEY_HEADER runs with `currentAbandonSignal()`, aborted when its caller names it.
 */
export class DrainingNatsServer extends ServerNats {
  private inFlight = 0;
  private accepting = true;
  private readonly idleWaiters = new Set<() => void>();
  /** Requests taken and not answered yet: their message (to answer) and Nest's packet id. */
  private readonly unanswered = new Set<{ msg: Msg; id: string; cutOff: boolean }>();

  /** Requests admitted by the in-flight cap and not answered yet; the release of each by its message. */
  private admitted = 0;
  private readonly releases = new WeakMap<Msg, () => void>();
  /** Requests refused by the in-flight cap so far. */
  refusedBusy = 0;
  /** Requests their callers may abandon, and the subscription that hears the notices (ADR 0043). */
  readonly abandons = new RequestAbandons();
  private abandonSubscription?: Subscription;
  /** The release of each held request, by its message: called once its last reply packet is out. */
  private readonly abandonReleases = new WeakMap<Msg, () => void>();
  /** Notices that named a request this replica was running. */
  abandoned = 0;

  constructor(
    private readonly serverOptions: ServerOptions,
    private readonly gracePeriodMs: number,
    /** Most requests this replica handles at once; more are answered SERVICE_UNAVAILABLE at once. 0: no cap. */
    private readonly maxInFlight = 0,
  ) {
    // Nest's fixed-sleep shutdown is replaced by close() below.
    super({ ...serverOptions, gracefulShutdown: false });
    // Nest runs these around every request handler, from its start until its reply stream is finished.
    this.setOnProcessingStartHook((_transport, _context, done) => {
      this.inFlight += 1;
      return done();
    });
    this.setOnProcessingEndHook(() => {
      this.inFlight -= 1;
      if (this.inFlight === 0) for (const wake of this.idleWaiters) wake();
    });
  }

  /**
   * Refuses to start a Trawl service (its queue group is a service name) whose handlers are not exactly the subjects
   * SUBJECT_TABLE says it serves: a missing one would answer "no responders" forever, an extra one would be refused by
   * the deploy's NATS permissions.
   */
  override async listen(callback: (err?: unknown, ...optionalParams: unknown[]) => void): Promise<void> {
    const problem = servedSubjectsProblem(this.serverOptions.queue, [...this.messageHandlers.keys()]);
    if (problem) return callback(new Error(problem));
    return super.listen(callback);
  }

  override start(callback: (err?: unknown, ...optionalParams: unknown[]) => void): void {
    super.start((err?: unknown) => {
      if (err) return callback(err);
      const nc = this.unwrap<NatsConnection>();
      if (this.hearsAbandons()) this.abandonSubscription = this.listenForAbandons(nc);
      nc.flush().then(() => callback(), callback);
    });
  }

  /**
   * Every request, before Nest decodes it: past the in-flight cap it is answered SERVICE_UNAVAILABLE (marked
   * REPLICA_BUSY_HEADER) at once and its handler never runs, so a burst cannot pile unbounded work on one replica and
   * its caller can try another at once instead of waiting out its deadline here.
   */
  override async handleMessage(channel: string, natsMsg: Msg): Promise<unknown> {
    const key = this.abandonSubscription ? natsMsg.headers?.get(ABANDON_KEY_HEADER) : undefined;
    if (!key) return this.admit(channel, natsMsg);
    // Nest's handleMessage returns once the handler's reply stream is set up, not when it ends: the request stays held
    // until its last reply packet is published (getPublisher), or it is refused.
    const held = this.abandons.hold(key);
    this.abandonReleases.set(natsMsg, held.release);
    try {
      return await withAbandonSignal(held.signal, () => this.admit(channel, natsMsg));
    } catch (e) {
      held.release();
      throw e;
    }
  }

  private async admit(channel: string, natsMsg: Msg): Promise<unknown> {
    if (this.maxInFlight <= 0 || !natsMsg.reply) return super.handleMessage(channel, natsMsg);
    if (this.admitted >= this.maxInFlight) {
      this.refuseBusy(natsMsg);
      return undefined;
    }
    this.admitted += 1;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.admitted -= 1;
    };
    this.releases.set(natsMsg, release);
    try {
      return await super.handleMessage(channel, natsMsg);
    } catch (e) {
      release();
      throw e;
    }
  }

  /** Nest's reply publisher, wrapped to know which requests are still unanswered (see `close`). */
  override getPublisher(natsMsg: Msg, id: string, ctx: NatsContext): (response: unknown) => unknown {
    const publish = super.getPublisher(natsMsg, id, ctx) as (response: unknown) => unknown;
    if (!natsMsg.reply) return publish;
    const entry = { msg: natsMsg, id, cutOff: false };
    this.unanswered.add(entry);
    return (response) => {
      // close() answered it already when the grace period ran out: the caller has its answer, the connection is gone.
      if (entry.cutOff) return undefined;
      this.unanswered.delete(entry);
      // The last packet of the reply (Nest marks it isDisposed) frees the request's place under the in-flight cap.
      const packet = response as { isDisposed?: boolean; status?: string } | null;
      if (packet?.isDisposed === true || packet?.status === 'error') {
        this.releases.get(natsMsg)?.();
        this.abandonReleases.get(natsMsg)?.();
      }
      return publish(response);
    };
  }

  /** Whether this service is among the subscribers of `extract.abandon.v1` (its queue group names it). */
  private hearsAbandons(): boolean {
    const queue = this.serverOptions.queue ?? '';
    if (!(SERVICE_NAMES as readonly string[]).includes(queue)) return false;
    return hearsBroadcast(queue as ServiceName, SUBJECT_TABLE.extractAbandon.subject);
  }

  /** Every replica hears every notice (no queue group); the one running the named request aborts its signal. */
  private listenForAbandons(nc: NatsConnection): Subscription {
    const row = SUBJECT_TABLE.extractAbandon;
    return nc.subscribe(row.subject, {
      callback: (err, msg) => {
        if (err) return;
        let requestId: string;
        try {
          requestId = row.payload.parse(JSON.parse(new TextDecoder().decode(msg.data))).requestId;
        } catch {
          return; // not a notice of ours: nothing to abandon
        }
        const reason = new TrawlError('TASK_CANCELLED', 'the caller abandoned the request', {
          retryable: false,
        });
        if (this.abandons.abandon(requestId, reason)) this.abandoned += 1;
      },
    });
  }

  /** Requests this replica refused because it was at its in-flight cap. */
  private refuseBusy(natsMsg: Msg): void {
    this.refusedBusy += 1;
    this.abandonReleases.get(natsMsg)?.();
    let id: unknown;
    try {
      id = (JSON.parse(new TextDecoder().decode(natsMsg.data)) as { id?: unknown }).id;
    } catch {
      return; // not a request packet: nothing to answer
    }
    const err: WireError = {
      code: 'SERVICE_UNAVAILABLE',
      message: `the replica is handling its ${this.maxInFlight} requests at once; try another`,
      retryable: true,
    };
    const hdrs = natsHeaders();
    hdrs.set(REPLICA_BUSY_HEADER, '1');
    try {
      natsMsg.respond(JSON.stringify({ id, err, isDisposed: true }), { headers: hdrs });
    } catch {
      // The connection is gone: the caller meets the outage as a lost connection.
    }
  }

  /** Requests being handled now (their replies not yet sent). */
  get requestsInFlight(): number {
    return this.inFlight;
  }

  /** False once close() has drained the subscriptions: the NATS server routes no more requests here. */
  get acceptingRequests(): boolean {
    return this.accepting;
  }

  override async close(): Promise<void> {
    // ServerNats keeps its subscriptions in a private field. A plain unsubscribe drops the requests the NATS server
    // sent before it saw the UNSUB (their callers would time out); a drain hands them to their handlers first.
    const { subscriptions } = this as unknown as { subscriptions: Subscription[] };
    const drained = subscriptions.map((sub) => sub.drain().catch(() => undefined));
    // Notices still matter while the last requests run: that subscription ends with the connection.
    subscriptions.length = 0;
    await Promise.all(drained);
    this.accepting = false;
    // A request delivered in the last moment of the drain enters its handler (and the in-flight count) on the next tick.
    await new Promise<void>((resolve) => setImmediate(resolve));
    const finished = await this.whenIdle();
    // The last replies are published on the tick after their stream ends; let them out before the connection closes.
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (!finished) this.answerUnfinished();
    await this.connection()
      ?.flush()
      .catch(() => undefined);
    await super.close();
  }

  /** Answers every request still unanswered (the grace period ran out) with SERVICE_UNAVAILABLE. */
  private answerUnfinished(): void {
    const err: WireError = {
      code: 'SERVICE_UNAVAILABLE',
      message: `the replica shut down before it finished the request (grace period of ${this.gracePeriodMs} ms)`,
      retryable: true,
    };
    const hdrs = natsHeaders();
    hdrs.set(REPLICA_SHUT_DOWN_HEADER, '1');
    for (const entry of this.unanswered) {
      this.unanswered.delete(entry);
      entry.cutOff = true;
      this.abandonReleases.get(entry.msg)?.();
      try {
        entry.msg.respond(JSON.stringify({ id: entry.id, err, isDisposed: true }), { headers: hdrs });
      } catch {
        // The connection is gone already: nothing can reach the caller, who meets the outage as a lost connection.
      }
    }
  }

  /** Waits until no request is being handled (true), or the grace period has run out first (false). */
  private async whenIdle(): Promise<boolean> {
    if (this.inFlight === 0) return true;
    let timer: NodeJS.Timeout | undefined;
    let wake: () => void = () => undefined;
    const idle = await new Promise<boolean>((resolve) => {
      wake = () => resolve(true);
      this.idleWaiters.add(wake);
      timer = setTimeout(() => resolve(false), this.gracePeriodMs);
    });
    this.idleWaiters.delete(wake);
    clearTimeout(timer);
    return idle;
  }

  private connection(): NatsConnection | undefined {
    try {
      return this.unwrap<NatsConnection>();
    } catch {
      return undefined; // never listened
    }
  }
}

/**
 * Why the handlers `patterns` of the service whose queue group is `queue` are not the subjects its rows of
 * SUBJECT_TABLE say it serves, or undefined when they are (or `queue` is no Trawl service: a test's own group).
 */
export function servedSubjectsProblem(queue: string | undefined, patterns: readonly string[]): string | undefined {
  if (!(SERVICE_NAMES as readonly string[]).includes(queue ?? '')) return undefined;
  const service = queue as ServiceName;
  const rows = subjectsServedBy(service);
  const missing = rows.filter((s) => !patterns.includes(s));
  const extra = patterns.filter((s) => !rows.includes(s));
  if (missing.length === 0 && extra.length === 0) return undefined;
  return [
    `${service} does not serve exactly its subjects (SUBJECT_TABLE in libs/contracts):`,
    ...(missing.length ? [`no handler for ${missing.join(', ')}`] : []),
    ...(extra.length ? [`handlers for subjects it does not serve: ${extra.join(', ')}`] : []),
  ].join(' ');
}
