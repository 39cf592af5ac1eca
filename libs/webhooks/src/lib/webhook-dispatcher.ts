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
import { CONSUMERS, STREAMS, SUBJECTS, type TaskFinishedEvent, type WebhookDeadLetter } from '@trawl/contracts';
import { ensureOutcomeStream, ensureStream, DEFAULT_OUTCOME_STREAM_OPTIONS } from '@trawl/tasks';
import { SpanKind, traced, tracingActive, withExtractedContext } from '@trawl/telemetry';
import { retryDelay, type RetryPolicy } from './retry-schedule.js';
import type { WebhookSender } from './webhook-sender.js';

export interface WebhookDispatcherOptions {
  /** Deliveries in flight at once. */
  concurrency: number;
  /** Outcomes waiting for a retry at most (the consumer's max_ack_pending). */
  maxPending: number;
  /** How long a delivery may hold its message before JetStream hands it out again, ms. */
  ackWaitMs: number;
  retry: RetryPolicy;
  log?: (level: 'info' | 'warn' | 'error', message: string, error?: unknown) => void;
  /** Observes each delivery attempt (metrics): delivered, retry (will be retried) or failed (gone, dead-lettered). */
  observe?: (outcome: 'delivered' | 'retry' | 'failed', seconds: number) => void;
}

/** Ensures the dead-letter stream exists. */
export function ensureDeadLetterStream(jsm: JetStreamManager): Promise<void> {
  return ensureStream(jsm, STREAMS.webhookDeadLetters, {
    ...DEFAULT_OUTCOME_STREAM_OPTIONS,
    maxAgeMs: 30 * 24 * 60 * 60 * 1000,
  });
}

/**
 * Delivers task outcomes from JetStream to webhooks. A durable pull consumer hands out each outcome; a 2xx answer
 * acks it, 410 ends it, anything else (429, 5xx, timeouts, network) is retried after the schedule's delay (with
 * jitter, at least the receiver's Retry-After) by a delayed NAK, so retries survive a restart. When the schedule is
 * spent (or the URL is refused by the SSRF guard) the outcome goes to the dead-letter stream.
 */
export class WebhookDispatcher {
  private readonly encoder = new TextEncoder();
  private readonly decoder = new TextDecoder();
  private js!: JetStreamClient;
  private messages: ConsumerMessages | undefined;
  private loop: Promise<void> | undefined;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly nc: NatsConnection,
    private readonly sender: Pick<WebhookSender, 'deliver'>,
    private readonly options: WebhookDispatcherOptions,
  ) {}

  async start(): Promise<void> {
    const jsm = await jetstreamManager(this.nc);
    await ensureOutcomeStream(jsm);
    await ensureDeadLetterStream(jsm);
    await this.ensureConsumer(jsm);
    this.js = jetstream(this.nc);
    const consumer = await this.js.consumers.get(STREAMS.taskOutcomes.name, CONSUMERS.webhookDispatcher);
    this.messages = await consumer.consume({ max_messages: this.options.concurrency });
    this.loop = this.run(this.messages);
  }

  /** Stops taking outcomes and waits for deliveries in flight. */
  async close(): Promise<void> {
    await this.messages?.close();
    await this.loop;
    await Promise.all(this.inFlight);
  }

  private async ensureConsumer(jsm: JetStreamManager): Promise<void> {
    const config = {
      ack_wait: nanos(this.options.ackWaitMs),
      max_ack_pending: this.options.maxPending,
    };
    try {
      await jsm.consumers.info(STREAMS.taskOutcomes.name, CONSUMERS.webhookDispatcher);
      await jsm.consumers.update(STREAMS.taskOutcomes.name, CONSUMERS.webhookDispatcher, config);
    } catch (e) {
      if (!(e instanceof JetStreamApiError) || e.code !== JetStreamApiCodes.ConsumerNotFound) throw e;
      await jsm.consumers.add(STREAMS.taskOutcomes.name, {
        durable_name: CONSUMERS.webhookDispatcher,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
        filter_subject: SUBJECTS.taskFinished,
        max_deliver: -1,
        ...config,
      });
    }
  }

  private async run(messages: ConsumerMessages): Promise<void> {
    for await (const m of messages) {
      while (this.inFlight.size >= this.options.concurrency) await Promise.race(this.inFlight);
      const p = this.handle(m)
        .catch((e: unknown) => {
          this.options.log?.('error', 'delivery handling failed', e);
          m.nak(1000);
        })
        .finally(() => this.inFlight.delete(p));
      this.inFlight.add(p);
    }
  }

  private async handle(m: JsMsg): Promise<void> {
    let event: TaskFinishedEvent;
    try {
      event = JSON.parse(this.decoder.decode(m.data)) as TaskFinishedEvent;
    } catch (e) {
      this.options.log?.('error', `outcome #${m.seq} is not JSON; dropped`, e);
      m.term('not JSON');
      return;
    }
    const attempt = m.info.deliveryCount;
    const started = performance.now();
    const result = await this.deliver(m, event, attempt);
    const observe = (outcome: 'delivered' | 'retry' | 'failed') =>
      this.options.observe?.(outcome, (performance.now() - started) / 1000);
    switch (result.outcome) {
      case 'delivered':
        m.ack();
        observe('delivered');
        return;
      case 'gone':
        this.options.log?.('info', `webhook of ${event.eventId} answered 410 Gone; not retried`);
        m.term('410 Gone');
        observe('failed');
        return;
      case 'refused':
        await this.deadLetter(m, event, result.reason, attempt, null);
        observe('failed');
        return;
      case 'retry': {
        const delay = retryDelay(this.options.retry, attempt, result.retryAfterMs);
        if (delay === undefined) await this.deadLetter(m, event, result.reason, attempt, result.status);
        else m.nak(delay);
        observe(delay === undefined ? 'failed' : 'retry');
        return;
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
  }
}
