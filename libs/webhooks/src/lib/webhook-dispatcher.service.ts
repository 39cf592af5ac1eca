import {
  AckPolicy,
  DeliverPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  jetstream,
  jetstreamManager,
  type ConsumerMessages,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
} from '@nats-io/jetstream';
import { nanos, type NatsConnection } from '@nats-io/nats-core';
import {
  CONSUMERS,
  STREAMS,
  SUBJECT_TABLE,
  SUBJECTS,
  type TaskFinishedEvent,
  type WebhookDeadLetter,
} from '@trawl/contracts';
import {
  ensureOutcomeStream,
  ensureStream,
  DEFAULT_OUTCOME_STREAM_OPTIONS,
  type EnsureStreamResult,
  type StreamReplicas,
} from '@trawl/messaging';
import { SpanKind, traced, tracingActive, withExtractedContext } from '@trawl/telemetry';
import { HostLanes, type HostVerdict } from './host-lanes.queue.js';
import { retryDelay, type RetryPolicy } from './retry-schedule.policy.js';
import type { WebhookSender } from './webhook-sender.service.js';

export interface WebhookDispatcherOptions {
  /** Deliveries in flight at once. */
  concurrency: number;
  /** Fair sharing between receivers (see HostLanes); defaults derived from `concurrency`. */
  hosts?: Partial<WebhookHostOptions>;
  /** Outcomes waiting for a retry at most (the consumer's max_ack_pending). */
  maxPending: number;
  /** How long a delivery may hold its message before JetStream hands it out again, ms. */
  ackWaitMs: number;
  retry: RetryPolicy;
  log?: (level: 'info' | 'warn' | 'error', message: string, error?: unknown) => void;
  /** Observes each delivery attempt (metrics): delivered, retry (will be retried) or failed (gone, dead-lettered). */
  observe?: (outcome: 'delivered' | 'retry' | 'failed', seconds: number) => void;
  /**
   * Replicas of the outcome and dead-letter streams and of the durable consumer (`NATS_STREAM_REPLICAS`, see
   * `streamReplicas`); existing ones are brought to it at start. Unset: created with one, existing left as they are.
   */
  replicas?: StreamReplicas;
  /** How often the consumer is checked (consumer info), ms; a lost one is rebound. Default 5000. */
  watchIntervalMs?: number;
  /** Told when the consumer is lost and when it is bound again. */
  onState?: (state: DispatcherConsumerState) => void;
}

/** Whether the dispatcher is bound to its durable consumer, or has lost it and is rebinding. */
export type DispatcherConsumerState = 'bound' | 'lost';

/** Per-host sharing of the delivery slots (`WEBHOOK_HOST_*`, `WEBHOOK_CIRCUIT_*`). */
export interface WebhookHostOptions {
  /** Deliveries in flight to one host (`host:port` of the webhook URL). Default: a quarter of `concurrency`, >= 1. */
  perHost: number;
  /** Failures in a row (time-outs, network errors, 5xx) that back a host off as a whole. Default 5. */
  circuitFailures: number;
  /** How long a host is first backed off (doubling while it keeps failing, up to 16 times). Default 30 s. */
  circuitOpenMs: number;
}

/** A host whose every slot has been held this long is slow: outcomes beyond its lane are deferred, not waited for. */
const SLOW_HOST_AFTER_MS = 1000;
/** How long such an outcome is deferred. */
const SLOW_HOST_DEFER_MS = 5000;

/** Tries to bind the consumer at start before giving up (the service then fails to start). */
const START_ATTEMPTS = 5;

/** How long an outcome whose signing secret could not be read waits before it is tried again, ms. */
const UNAVAILABLE_DEFER_MS = 1000;

/** Stream-sequence → deliveries that were deferrals (not attempts) we remember at most. */
const MAX_DEFERRALS_REMEMBERED = 100_000;

interface Pending {
  m: JsMsg;
  event: TaskFinishedEvent;
  attempt: number;
}

/** Ensures the dead-letter stream exists. */
export function ensureDeadLetterStream(jsm: JetStreamManager, replicas?: StreamReplicas): Promise<EnsureStreamResult> {
  return ensureStream(jsm, STREAMS.webhookDeadLetters, {
    ...DEFAULT_OUTCOME_STREAM_OPTIONS,
    maxAgeMs: 30 * 24 * 60 * 60 * 1000,
    ...(replicas ? { replicas } : {}),
  });
}

/**
 * Delivers task outcomes from JetStream to webhooks. A durable pull consumer hands out each outcome; a 2xx answer
 * acks it, 410 ends it, anything else (429, 5xx, timeouts, network) is retried after the schedule's delay (with
 * jitter, at least the receiver's Retry-After) by a delayed NAK, so retries survive a restart. When the schedule is
 * spent (or the URL is refused by the SSRF guard) the outcome goes to the dead-letter stream. Delivery slots are shared
 * fairly between receivers' hosts (HostLanes): one tenant's hanging receiver cannot hold up another's.
 */
export class WebhookDispatcher {
  private readonly encoder = new TextEncoder();
  private readonly decoder = new TextDecoder();
  private js!: JetStreamClient;
  private messages: ConsumerMessages | undefined;
  private loop: Promise<void> | undefined;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly lanes: HostLanes<Pending>;
  /** Redeliveries of each outcome (by stream sequence) that were deferrals, not attempts. */
  private readonly deferrals = new Map<number, number>();
  private readonly waiters = new Set<() => void>();
  private keepAlive: NodeJS.Timeout | undefined;
  private watch: NodeJS.Timeout | undefined;
  private closing = false;
  private consumerState: DispatcherConsumerState = 'bound';
  private rebinding: Promise<void> | undefined;
  private lastUnavailableLog = 0;
  private checking: Promise<void> | undefined;

  constructor(
    private readonly nc: NatsConnection,
    private readonly sender: Pick<WebhookSender, 'deliver'>,
    private readonly options: WebhookDispatcherOptions,
  ) {
    const concurrency = options.concurrency;
    const perHost = options.hosts?.perHost ?? Math.max(1, Math.floor(concurrency / 4));
    this.lanes = new HostLanes<Pending>({
      concurrency,
      perHost,
      perHostQueued: perHost,
      retrySlots: Math.max(1, Math.ceil(concurrency / 2)),
      circuitFailures: options.hosts?.circuitFailures ?? 5,
      circuitOpenMs: options.hosts?.circuitOpenMs ?? 30_000,
      slowAfterMs: SLOW_HOST_AFTER_MS,
      slowDeferMs: SLOW_HOST_DEFER_MS,
    });
  }

  async start(): Promise<void> {
    this.js = jetstream(this.nc);
    // JetStream may be electing leaders (a node just lost, a stream just raised to more replicas): a few tries.
    for (let attempt = 1; ; attempt++) {
      try {
        await this.bind();
        break;
      } catch (e) {
        if (attempt >= START_ATTEMPTS) throw e;
        this.options.log?.('warn', `outcome consumer not bound yet (attempt ${attempt}): ${errorText(e)}`);
        await new Promise((r) => setTimeout(r, 1000 * attempt));
      }
    }
    // Outcomes waiting in a lane keep their messages: JetStream would hand them out again after the ack wait.
    this.keepAlive = setInterval(
      () => {
        for (const p of this.lanes.waitingItems()) p.m.working();
      },
      Math.max(100, this.options.ackWaitMs / 3),
    );
    this.keepAlive.unref();
    this.watch = setInterval(() => void this.check('check'), this.options.watchIntervalMs ?? 5000);
    this.watch.unref();
  }

  /** `bound` while the dispatcher takes outcomes from its consumer; `lost` while it rebinds (readiness). */
  state(): DispatcherConsumerState {
    return this.consumerState;
  }

  /** Ensures the streams and the consumer (at their replica count) and starts consuming. */
  private async bind(): Promise<void> {
    const jsm = await jetstreamManager(this.nc, { timeout: 5000 });
    const replicas = this.options.replicas;
    const outcomes = await ensureOutcomeStream(jsm, {
      ...DEFAULT_OUTCOME_STREAM_OPTIONS,
      ...(replicas ? { replicas } : {}),
    });
    const letters = await ensureDeadLetterStream(jsm, replicas);
    for (const [name, r] of [
      [STREAMS.taskOutcomes.name, outcomes],
      [STREAMS.webhookDeadLetters.name, letters],
    ] as const) {
      if (r.action === 'replicas') this.options.log?.('info', `stream ${name}: replicas ${r.from} -> ${r.to}`);
    }
    await this.ensureConsumer(jsm);
    const consumer = await this.js.consumers.get(STREAMS.taskOutcomes.name, CONSUMERS.webhookDispatcher);
    const messages = await consumer.consume({ max_messages: this.options.concurrency });
    this.messages = messages;
    void this.followStatus(messages);
    // Messages that end by themselves (not closed by us) mean the consumer is gone.
    this.loop = this.run(messages).then(
      () => {
        if (!this.closing && this.messages === messages) void this.lost('consumer stopped');
      },
      (e: unknown) => {
        if (!this.closing && this.messages === messages) void this.lost(`consumer stopped: ${errorText(e)}`);
      },
    );
  }

  /** A notification that the consumer may be gone (missed heartbeats, not found, deleted) triggers a check at once. */
  private async followStatus(messages: ConsumerMessages): Promise<void> {
    for await (const s of messages.status()) {
      if (this.closing || this.messages !== messages) return;
      if (
        s.type === 'heartbeats_missed' ||
        s.type === 'consumer_not_found' ||
        s.type === 'stream_not_found' ||
        s.type === 'consumer_deleted' ||
        s.type === 'no_responders'
      ) {
        void this.check(s.type);
      }
    }
  }

  /** Asks JetStream for the consumer; one that is not found or does not answer is lost. */
  private check(why: string): Promise<void> {
    if (this.closing || this.rebinding) return Promise.resolve();
    this.checking ??= (async () => {
      try {
        const jsm = await jetstreamManager(this.nc, { timeout: 3000 });
        await jsm.consumers.info(STREAMS.taskOutcomes.name, CONSUMERS.webhookDispatcher);
      } catch (e) {
        await this.lost(`${why}: ${errorText(e)}`);
      }
    })().finally(() => (this.checking = undefined));
    return this.checking;
  }

  /** Warns, says so (state `lost`) and rebinds until it is bound again (or closing). */
  private lost(reason: string): Promise<void> {
    if (this.closing) return Promise.resolve();
    this.rebinding ??= (async () => {
      this.consumerState = 'lost';
      this.options.onState?.('lost');
      this.options.log?.('warn', `lost the outcome consumer (${reason}); rebinding`);
      const old = this.messages;
      this.messages = undefined;
      await old?.close().catch(() => undefined);
      for (let wait = 250; !this.closing; wait = Math.min(wait * 2, 5000)) {
        try {
          await this.bind();
          this.consumerState = 'bound';
          this.options.onState?.('bound');
          this.options.log?.('info', 'outcome consumer bound again; taking outcomes');
          return;
        } catch (e) {
          this.options.log?.('warn', `outcome consumer not bound yet: ${errorText(e)}`);
          await new Promise((r) => setTimeout(r, wait));
        }
      }
    })().finally(() => (this.rebinding = undefined));
    return this.rebinding;
  }

  /** Stops taking outcomes and waits for deliveries in flight; those still waiting in a lane go back to JetStream. */
  async close(): Promise<void> {
    this.closing = true;
    clearInterval(this.watch);
    await this.rebinding;
    await this.messages?.close();
    this.wake();
    await this.loop;
    for (const p of this.lanes.waitingItems()) p.m.nak();
    while (this.inFlight.size > 0) await Promise.all(this.inFlight);
    clearInterval(this.keepAlive);
  }

  private async ensureConsumer(jsm: JetStreamManager): Promise<void> {
    const replicas = this.options.replicas;
    const config = {
      ack_wait: nanos(this.options.ackWaitMs),
      max_ack_pending: this.options.maxPending,
    };
    try {
      const info = await jsm.consumers.info(STREAMS.taskOutcomes.name, CONSUMERS.webhookDispatcher);
      const have = info.config.num_replicas || 0;
      // 0: the stream's count. Raised to the wanted count; lowered only when that count is explicit.
      const bring = replicas && have !== replicas.count && (replicas.explicit || replicas.count > (have || 1));
      await jsm.consumers.update(STREAMS.taskOutcomes.name, CONSUMERS.webhookDispatcher, {
        ...config,
        ...(bring ? { num_replicas: replicas.count } : {}),
      });
      if (bring)
        this.options.log?.('info', `consumer ${CONSUMERS.webhookDispatcher}: replicas ${have} -> ${replicas.count}`);
    } catch (e) {
      if (!(e instanceof JetStreamApiError) || e.code !== JetStreamApiCodes.ConsumerNotFound) throw e;
      await jsm.consumers.add(STREAMS.taskOutcomes.name, {
        durable_name: CONSUMERS.webhookDispatcher,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
        filter_subject: SUBJECTS.taskFinished,
        max_deliver: -1,
        ...(replicas ? { num_replicas: replicas.count } : {}),
        ...config,
      });
    }
  }

  /**
   * Takes outcomes as JetStream hands them out and puts each in its host's lane (or defers it); the lanes decide
   * what starts. The loop takes more only while the lanes hold fewer than `concurrency` waiting outcomes. A host
   * whose lane is full holds the loop only while it keeps up; once slow, its overflow is deferred, so the outcomes of
   * other hosts behind it are read.
   */
  private async run(messages: ConsumerMessages): Promise<void> {
    for await (const m of messages) {
      const pending = this.read(m);
      if (pending) await this.admit(pending);
      while (!this.closing && this.lanes.waiting >= this.options.concurrency) await this.changed();
    }
  }

  /** Puts an outcome in its host's lane, or defers it; waits while its lane is full and its host keeps up. */
  private async admit(pending: Pending): Promise<void> {
    const host = hostOf(pending.event.webhook ?? '');
    for (;;) {
      if (this.closing) {
        pending.m.nak();
        return;
      }
      const added = this.lanes.add(host, pending, pending.attempt > 1);
      if (added.queued) return this.pump();
      if ('deferMs' in added) return this.defer(pending.m, added.deferMs);
      // A slot frees, or the host turns out slow.
      await Promise.race([this.changed(), new Promise((r) => setTimeout(r, SLOW_HOST_AFTER_MS / 4))]);
    }
  }

  /**
   * The outcome of a message and its attempt number, or undefined: a message that is not an outcome (not JSON, or not
   * the row's TaskFinishedEventDto, SUBJECT_TABLE.taskFinished) is dropped, never delivered half-read.
   */
  private read(m: JsMsg): Pending | undefined {
    try {
      const event: TaskFinishedEvent = SUBJECT_TABLE.taskFinished.payload.parse(
        JSON.parse(this.decoder.decode(m.data)),
      );
      if (event.webhook === undefined) {
        // Submitted without a webhook (a peer API's batch, followed by lookup): nothing to deliver.
        m.ack();
        return undefined;
      }
      return { m, event, attempt: this.attemptOf(m) };
    } catch (e) {
      this.options.log?.('error', `outcome #${m.seq} is not a task outcome; dropped`, e);
      m.term('not a task outcome');
      this.deferrals.delete(m.seq);
      return undefined;
    }
  }

  /**
   * The attempt a delivery is: its deliveries less those that were deferrals. Deferrals are remembered by this
   * process only; after a restart the count is also bounded by the outcome's age (no more attempts than the schedule
   * fits in it), so deferrals before the restart cannot spend the schedule early.
   */
  private attemptOf(m: JsMsg): number {
    const byCount = m.info.deliveryCount - (this.deferrals.get(m.seq) ?? 0);
    const ageMs = Date.now() - Number(m.info.timestampNanos / 1_000_000);
    return Math.max(1, Math.min(byCount, attemptsByAge(this.options.retry, ageMs)));
  }

  /** Hands an outcome back to JetStream for later without using an attempt (a full lane, an open circuit). */
  private defer(m: JsMsg, ms: number): void {
    if (this.deferrals.size >= MAX_DEFERRALS_REMEMBERED) {
      const oldest = this.deferrals.keys().next();
      if (!oldest.done) this.deferrals.delete(oldest.value);
    }
    this.deferrals.set(m.seq, (this.deferrals.get(m.seq) ?? 0) + 1);
    const jitter = Math.round(ms * this.options.retry.jitter * Math.random());
    m.nak(ms + jitter);
  }

  /** Logs that secrets cannot be read, at most every 10 s (every outcome meets it while the key store is away). */
  private noteUnavailable(reason: string): void {
    if (Date.now() - this.lastUnavailableLog < 10_000) return;
    this.lastUnavailableLog = Date.now();
    this.options.log?.('warn', `outcomes wait (not an attempt): ${reason}`);
  }

  /** Starts what the lanes allow. */
  private pump(): void {
    if (this.closing) return;
    for (const { host, item, retry } of this.lanes.take()) {
      const p = this.handle(item)
        .catch((e: unknown): HostVerdict => {
          this.options.log?.('error', 'delivery handling failed', e);
          item.m.nak(1000);
          return 'neutral';
        })
        .then((verdict) => {
          const { deferred, deferMs } = this.lanes.done(host, retry, verdict);
          if (deferred.length > 0) {
            this.options.log?.('warn', `webhook host ${host} keeps failing: backed off for ${deferMs} ms`);
            for (const d of deferred) this.defer(d.m, deferMs);
          }
        })
        .finally(() => {
          this.inFlight.delete(p);
          this.pump();
          this.wake();
        });
      this.inFlight.add(p);
    }
  }

  private changed(): Promise<void> {
    return new Promise((resolve) => this.waiters.add(resolve));
  }

  private wake(): void {
    for (const w of this.waiters) w();
    this.waiters.clear();
  }

  /** One delivery attempt and what it did; answers its verdict on the host (circuit). */
  private async handle({ m, event, attempt }: Pending): Promise<HostVerdict> {
    const started = performance.now();
    const result = await this.deliver(m, event, attempt);
    const observe = (outcome: 'delivered' | 'retry' | 'failed') =>
      this.options.observe?.(outcome, (performance.now() - started) / 1000);
    switch (result.outcome) {
      case 'delivered':
        m.ack();
        this.deferrals.delete(m.seq);
        observe('delivered');
        return 'ok';
      case 'gone':
        this.options.log?.('info', `webhook of ${event.eventId} answered 410 Gone; not retried`);
        m.term('410 Gone');
        this.deferrals.delete(m.seq);
        observe('failed');
        return 'ok';
      case 'refused':
        await this.deadLetter(m, event, result.reason, attempt, null);
        observe('failed');
        return 'neutral';
      case 'unavailable':
        // Our side (the key store) is away: the outcome waits, without using an attempt or blaming its host.
        this.noteUnavailable(result.reason);
        this.defer(m, UNAVAILABLE_DEFER_MS);
        return 'neutral';
      case 'retry': {
        const delay = retryDelay(this.options.retry, attempt, result.retryAfterMs);
        if (delay === undefined) await this.deadLetter(m, event, result.reason, attempt, result.status);
        else m.nak(delay);
        observe(delay === undefined ? 'failed' : 'retry');
        // A receiver that times out, cannot be reached or fails (5xx) counts against its host; a 4xx or 429 is an
        // answer.
        return result.status === null || result.status >= 500 ? 'failed' : 'neutral';
      }
    }
  }

  /**
   * One delivery attempt; with tracing on, a CLIENT span in the outcome's trace (the message headers' context, else the
   * event's `trace`), whose context the POST carries as `traceparent`.
   */
  private deliver(m: JsMsg, event: TaskFinishedEvent, attempt: number): ReturnType<WebhookSender['deliver']> {
    if (!tracingActive()) return this.sender.deliver(event);
    const carrier = m.headers?.get('traceparent') ? m.headers : event.trace;
    return withExtractedContext(carrier, () =>
      traced('webhook POST', () => this.sender.deliver(event), {
        kind: SpanKind.CLIENT,
        attributes: { 'trawl.event_id': event.eventId, 'trawl.event': event.event, 'trawl.delivery_attempt': attempt },
      }),
    );
  }

  private async deadLetter(
    m: JsMsg,
    outcome: TaskFinishedEvent,
    reason: string,
    attempts: number,
    lastStatus: number | null,
  ): Promise<void> {
    const letter: WebhookDeadLetter = { outcome, reason, attempts, lastStatus, deadLetteredAt: Date.now() };
    await this.js.publish(SUBJECTS.taskDeliveryFailed, this.encoder.encode(JSON.stringify(letter)), {
      msgID: `${outcome.eventId}-dead-${m.seq}`,
    });
    this.options.log?.('warn', `outcome ${outcome.eventId} dead-lettered after ${attempts} attempt(s): ${reason}`);
    m.term(reason.slice(0, 200));
    this.deferrals.delete(m.seq);
  }
}

/** The lane of a webhook URL: its `host:port` (an unparsable URL gets its own lane; the sender refuses it). */
export function hostOf(webhook: string): string {
  try {
    return new URL(webhook).host;
  } catch {
    return '(invalid)';
  }
}

/**
 * The most attempts an outcome of this age can have had: 1 plus the retries whose scheduled delays (at their
 * shortest, with jitter) fit in its age.
 */
export function attemptsByAge(policy: RetryPolicy, ageMs: number): number {
  let attempts = 1;
  let elapsed = 0;
  for (const delay of policy.schedule) {
    elapsed += delay * (1 - policy.jitter);
    if (elapsed > ageMs) break;
    attempts += 1;
  }
  return attempts;
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
