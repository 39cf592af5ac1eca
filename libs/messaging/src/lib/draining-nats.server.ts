import { ServerNats, type NatsOptions } from '@nestjs/microservices';
import type { NatsConnection, Subscription } from '@nats-io/nats-core';
import { SERVICE_NAMES, subjectsServedBy, type ServiceName } from '@trawl/contracts';

type ServerOptions = Required<NatsOptions>['options'];

/**
 * Nest's NATS server with two changes. `listen()` resolves only once the NATS server holds the subscriptions (one
 * flush round trip; Nest's resolves when they are written to the socket, so a request sent right after on another
 * connection could meet "no responders", and a readiness probe could say ready too early). And a shutdown that
 * waits for the work, not for the clock: on close it drains its subscriptions (the NATS server stops routing to
 * this replica, and a request already on its way here is still handled rather than dropped; new requests go to
 * the other replicas of the queue group, or meet "no responders"), waits until every request being handled has
 * sent its reply, at most `gracePeriodMs`, flushes the replies, and closes. Nest's own graceful
 * shutdown sleeps the whole grace period even when idle, and drops any reply still running when it ends.
 */
export class DrainingNatsServer extends ServerNats {
  private inFlight = 0;
  private accepting = true;
  private readonly idleWaiters = new Set<() => void>();

  constructor(
    private readonly serverOptions: ServerOptions,
    private readonly gracePeriodMs: number,
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
      this.unwrap<NatsConnection>()
        .flush()
        .then(() => callback(), callback);
    });
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
    subscriptions.length = 0;
    await Promise.all(drained);
    this.accepting = false;
    // A request delivered in the last moment of the drain enters its handler (and the in-flight count) on the next tick.
    await new Promise<void>((resolve) => setImmediate(resolve));
    await this.whenIdle();
    // The last replies are published on the tick after their stream ends; let them out before the connection closes.
    await new Promise<void>((resolve) => setImmediate(resolve));
    await this.connection()
      ?.flush()
      .catch(() => undefined);
    await super.close();
  }

  private async whenIdle(): Promise<void> {
    if (this.inFlight === 0) return;
    let timer: NodeJS.Timeout | undefined;
    let wake: () => void = () => undefined;
    await new Promise<void>((resolve) => {
      wake = resolve;
      this.idleWaiters.add(wake);
      timer = setTimeout(resolve, this.gracePeriodMs);
    });
    this.idleWaiters.delete(wake);
    clearTimeout(timer);
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
