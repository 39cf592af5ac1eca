import type { Cluster, Redis } from 'ioredis';
import { TrawlError } from '@trawl/contracts';

/** A connection the confirmations use: a standalone/Sentinel client, or a Cluster client (routed by the ack key). */
export type AckConnection = Redis | Cluster;

export interface ReplicaAcksOptions {
  /**
   * Replicas that must confirm a write before a call that created jobs answers (`REDIS_MIN_REPLICAS_ACK`). Undefined:
   * 1 where the master has replicas (`expectReplicas`, or the master was seen with a connected replica), else 0.
   */
  minReplicas?: number;
  /** Longest wait for the confirmation (`REDIS_REPLICAS_ACK_TIMEOUT_MS`); then the call answers 503. */
  timeoutMs: number;
  /** The topology says there are replicas (Sentinel): the default is 1 even before one was seen. */
  expectReplicas?: boolean;
  /** Most confirmations in flight at once (each holds its own connection while it waits); default 8. */
  maxConnections?: number;
  /** How long "no replica seen" is trusted before the master is asked again (default 5 s). */
  replicaCheckIntervalMs?: number;
}

/** Why a confirmation did not come: the replicas that confirmed, and those required. */
export class ReplicaAckError extends TrawlError {
  constructor(
    readonly acked: number,
    readonly required: number,
    timeoutMs: number,
    cause?: unknown,
  ) {
    super(
      'SERVICE_UNAVAILABLE',
      cause
        ? `the jobs could not be confirmed on ${required} Redis replica(s): ${cause instanceof Error ? cause.message : String(cause)}; none of them will run; retry`
        : `the jobs were confirmed on ${acked} of the ${required} Redis replica(s) required within ${timeoutMs} ms; none of them will run; retry`,
      { retryable: true, cause },
    );
  }
}

/**
 * "Accepted means replicated": confirms that writes already applied on the master have reached at least
 * `minReplicas` replicas, with Redis `WAIT`, within `timeoutMs`.
 *
 * `WAIT` counts the replicas that acknowledged the calling connection's own last write. The writes to confirm are made
 * on the shared command connection, which must not be blocked for up to the timeout, so each confirmation makes one
 * small write of its own (`INCR` of an ack key) on a connection it holds alone, then `WAIT`s for that write. Redis
 * replicates in execution order, so a replica that has the ack write has every write the master applied before it,
 * including the caller's (whose reply the caller had already received). In a Cluster the ack key must hash to the
 * slot of the keys written (the queue's), so the `INCR` and the `WAIT` go to that master.
 */
export class ReplicaAcks {
  private readonly idle: AckConnection[] = [];
  private readonly waiting: ((c: AckConnection) => void)[] = [];
  private opened = 0;
  private closed = false;
  private seenReplicas = false;
  private checkedAt = 0;

  constructor(
    /** Opens a new command connection to the master (the confirmations' own). */
    private readonly connect: (name: string) => AckConnection,
    private readonly options: ReplicaAcksOptions,
  ) {}

  get timeoutMs(): number {
    return this.options.timeoutMs;
  }

  /**
   * How many replicas must confirm: the configured number, else 1 where the master has replicas (the topology says
   * so, or the master was once seen with a connected replica: from then on, for the life of the process) and 0 for a
   * server without replicas.
   */
  async required(): Promise<number> {
    if (this.options.minReplicas !== undefined) return this.options.minReplicas;
    if (this.options.expectReplicas || this.seenReplicas) return 1;
    const now = Date.now();
    if (now - this.checkedAt < (this.options.replicaCheckIntervalMs ?? 5000)) return 0;
    this.checkedAt = now;
    const connection = await this.acquire(now + this.options.timeoutMs);
    try {
      const info = String(await connection.call('INFO', 'replication'));
      const replicas = Number(/connected_slaves:(\d+)/.exec(info)?.[1] ?? 0);
      if (replicas > 0) this.seenReplicas = true;
    } finally {
      this.release(connection);
    }
    return this.seenReplicas ? 1 : 0;
  }

  /**
   * Resolves once the master's writes so far (the caller's included) are on at least `required` replicas; throws
   * ReplicaAckError (SERVICE_UNAVAILABLE, retryable) when fewer confirm within the timeout or Redis fails meanwhile.
   * `ackKey` names the slot (and so, in a Cluster, the master) of the writes to confirm.
   */
  async confirm(ackKey: string, required: number): Promise<void> {
    if (required <= 0) return;
    await this.confirmThen(ackKey, required);
  }

  /**
   * Whether a job's end (its `finishedOn`, read from its hash `jobKey`) is on at least `required` replicas: false when
   * the master confirmed does not hold that end. The confirmation and the read go to one master in order, so a
   * confirmation that reached a newly promoted master (the connection followed a failover) cannot vouch for an end
   * written on the lost one: the read finds the job as the promoted replica had it. Throws as `confirm`.
   */
  async confirmFinished(ackKey: string, required: number, jobKey: string, finishedOn: number): Promise<boolean> {
    if (required <= 0) return true;
    const stored = await this.confirmThen(ackKey, required, jobKey);
    return stored !== null && Number(stored) === finishedOn;
  }

  /** INCR + WAIT on a connection of its own; then, if `readFinishedOf` names a job hash, its `finishedOn`. */
  private async confirmThen(ackKey: string, required: number, readFinishedOf?: string): Promise<string | null> {
    const deadline = Date.now() + this.options.timeoutMs;
    let connection: AckConnection | undefined;
    let acked = 0;
    let finishedOn: string | null = null;
    try {
      connection = await this.acquire(deadline);
      // WAIT's timeout 0 would block for ever: at least 1 ms.
      const remaining = Math.max(1, deadline - Date.now());
      const pipeline = connection.pipeline().incr(ackKey).call('WAIT', required, remaining);
      if (readFinishedOf) pipeline.hget(readFinishedOf, 'finishedOn');
      const results = await pipeline.exec();
      for (const [error] of results ?? []) if (error) throw error;
      acked = Number(results?.[1]?.[1] ?? 0);
      finishedOn = (results?.[2]?.[1] as string | null | undefined) ?? null;
    } catch (e) {
      // The connection's state is unknown (a reply may still come): not reused.
      connection?.disconnect();
      if (connection) this.forget();
      connection = undefined;
      throw e instanceof ReplicaAckError ? e : new ReplicaAckError(0, required, this.options.timeoutMs, e);
    } finally {
      if (connection) this.release(connection);
    }
    if (acked < required) throw new ReplicaAckError(acked, required, this.options.timeoutMs);
    return finishedOn;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const c of this.idle.splice(0)) c.disconnect();
  }

  private acquire(deadline: number): Promise<AckConnection> {
    if (this.closed) return Promise.reject(new Error('replica acknowledgements are closed'));
    const idle = this.idle.pop();
    if (idle) return Promise.resolve(idle);
    if (this.opened < (this.options.maxConnections ?? 8)) {
      this.opened += 1;
      const connection = this.connect(`trawl-replica-acks-${this.opened}`);
      // Errors surface on the commands; without a listener ioredis would report them as unhandled.
      connection.on('error', () => undefined);
      return Promise.resolve(connection);
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => {
          const i = this.waiting.indexOf(take);
          if (i >= 0) this.waiting.splice(i, 1);
          reject(new Error(`no connection for the confirmation within ${this.options.timeoutMs} ms`));
        },
        Math.max(0, deadline - Date.now()),
      );
      const take = (c: AckConnection) => {
        clearTimeout(timer);
        resolve(c);
      };
      this.waiting.push(take);
    });
  }

  private release(connection: AckConnection): void {
    if (this.closed) {
      connection.disconnect();
      return;
    }
    const next = this.waiting.shift();
    if (next) next(connection);
    else this.idle.push(connection);
  }

  /** A connection was dropped: a waiter may open a new one. */
  private forget(): void {
    this.opened -= 1;
    const next = this.waiting.shift();
    if (!next) return;
    this.opened += 1;
    const connection = this.connect(`trawl-replica-acks-${this.opened}`);
    connection.on('error', () => undefined);
    next(connection);
  }
}
