import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { STREAMS, SUBJECT_TABLE, SUBJECTS, type WebhookDeadLetter } from '@trawl/contracts';
import { ensureDeadLetterStream } from './webhook-dispatcher.service.js';

export interface StoredDeadLetter {
  seq: number;
  letter: WebhookDeadLetter;
}

/** Lists dead-lettered outcomes and replays them (back onto the outcome stream, same event id, fresh attempts). */
export class WebhookDeadLetters {
  constructor(private readonly nc: NatsConnection) {}

  async list(): Promise<StoredDeadLetter[]> {
    const jsm = await jetstreamManager(this.nc);
    await ensureDeadLetterStream(jsm);
    const { state } = await jsm.streams.info(STREAMS.webhookDeadLetters.name);
    const out: StoredDeadLetter[] = [];
    if (state.messages === 0) return out;
    for (let seq = state.first_seq; seq <= state.last_seq; seq++) {
      const msg = await jsm.streams.getMessage(STREAMS.webhookDeadLetters.name, { seq }).catch(() => null);
      // Checked against its row (WebhookDeadLetterDto): a replay publishes only a well-formed outcome.
      if (msg) out.push({ seq, letter: SUBJECT_TABLE.taskDeliveryFailed.payload.parse(msg.json()) });
    }
    return out;
  }

  /** Replays the dead letters of `eventId` (every one when undefined); returns how many were replayed. */
  async replay(eventId?: string): Promise<number> {
    const jsm = await jetstreamManager(this.nc);
    const js = jetstream(this.nc);
    let n = 0;
    for (const { seq, letter } of await this.list()) {
      if (eventId !== undefined && letter.outcome.eventId !== eventId) continue;
      await js.publish(SUBJECTS.taskFinished, JSON.stringify(letter.outcome), {
        msgID: `${letter.outcome.eventId}-replay-${seq}`,
      });
      await jsm.streams.deleteMessage(STREAMS.webhookDeadLetters.name, seq);
      n++;
    }
    return n;
  }
}
