import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { jetstream } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { Webhook } from 'standardwebhooks';
import { SUBJECTS, type TaskFinishedEvent } from '@trawl/contracts';
import { connectNats } from '@trawl/messaging';
import { eventually, startLoopbackHttp, startNats, type LoopbackServer, type TestServer } from '@trawl/testing';
import { WebhookDeadLetters } from './webhook-dead-letters.store.js';
import { WebhookDispatcher } from './webhook-dispatcher.service.js';
import { WebhookSender } from './webhook-sender.service.js';
import { WebhookUrlGuard } from './webhook-url.guard.js';

const SECRET = `whsec_${Buffer.from('dispatcher-spec-secret-0123456789').toString('base64')}`;

describe('WebhookDispatcher (real NATS JetStream, loopback receiver)', () => {
  let nats: TestServer;
  let nc: NatsConnection;
  let sender: WebhookSender;
  let dispatcher: WebhookDispatcher;
  let receiver: LoopbackServer;
  /** Status to answer per request path; a function of the attempt number on that path. */
  const answers = new Map<string, (attempt: number) => number>();
  const seen = new Map<string, number>();
  /** Secret lookups still to fail, per API key id (the key store away). */
  const secretFailures = new Map<string, number>();

  beforeAll(async () => {
    nats = await startNats();
    nc = await connectNats([nats.url], 'dispatcher-spec');
    receiver = await startLoopbackHttp((req, res) => {
      const path = req.url ?? '';
      const attempt = (seen.get(path) ?? 0) + 1;
      seen.set(path, attempt);
      res.statusCode = (answers.get(path) ?? (() => 200))(attempt);
      res.end();
    });
    sender = new WebhookSender(
      new WebhookUrlGuard(['127.0.0.1']),
      async (apiKeyId) => {
        const left = secretFailures.get(apiKeyId ?? '') ?? 0;
        if (left > 0) {
          secretFailures.set(apiKeyId ?? '', left - 1);
          throw new Error('connect ECONNREFUSED (key store)');
        }
        return SECRET;
      },
      { timeoutMs: 2000 },
    );
    dispatcher = new WebhookDispatcher(nc, sender, {
      concurrency: 8,
      maxPending: 1000,
      ackWaitMs: 5000,
      retry: { schedule: [50, 50, 50], jitter: 0, maxRetryAfterMs: 1000 },
    });
    await dispatcher.start();
  });

  afterAll(async () => {
    await dispatcher?.close();
    await sender?.close();
    await nc?.close();
    await receiver?.close();
    await nats?.stop();
  });

  afterEach(() => answers.clear());

  let n = 0;
  async function publish(path: string, webhookBase = receiver.url, apiKeyId?: string): Promise<TaskFinishedEvent> {
    n++;
    const event: TaskFinishedEvent = {
      eventId: `scrape_evt${n}-1`,
      event: 'task.completed',
      webhook: `${webhookBase}${path}`,
      ...(apiKeyId ? { apiKeyId } : {}),
      task: {
        taskId: `scrape_evt${n}`,
        status: 'completed',
        params: { url: 'https://example.com/' },
        data: { ok: true },
        error: null,
        progress: 0,
        attemptsMade: 1,
        finishedOn: 1,
        processedOn: 1,
        stacktrace: [],
      },
      occurredAt: 1,
    };
    await jetstream(nc).publish(SUBJECTS.taskFinished, JSON.stringify(event), { msgID: event.eventId });
    return event;
  }
  const requestsTo = (path: string) => receiver.requests.filter((r) => r.url === path);

  it('POSTs the task record with its event name, signed with the event id as webhook-id', async () => {
    const event = await publish('/ok');
    await eventually(() => requestsTo('/ok').length === 1);
    const [req] = requestsTo('/ok');
    const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
    expect(headers['webhook-id']).toBe(event.eventId);
    expect(headers['content-type']).toBe('application/json');
    expect(new Webhook(SECRET).verify(req.body, headers)).toEqual({ event: 'task.completed', ...event.task });
  });

  it('stops at 410 Gone: one request, no retry, no dead letter', async () => {
    answers.set('/gone', () => 410);
    const event = await publish('/gone');
    await eventually(() => requestsTo('/gone').length === 1);
    await publish('/after-gone');
    await eventually(() => requestsTo('/after-gone').length === 1);
    await new Promise((r) => setTimeout(r, 300));
    expect(requestsTo('/gone')).toHaveLength(1);
    expect((await new WebhookDeadLetters(nc).list()).some((d) => d.letter.outcome.eventId === event.eventId)).toBe(
      false,
    );
  });

  it('retries on 500 per the schedule, dead-letters after the last attempt, and a replay delivers with the same webhook-id', async () => {
    let down = true;
    answers.set('/down', () => (down ? 503 : 200));
    const event = await publish('/down');
    const letters = new WebhookDeadLetters(nc);
    const letter = await eventually(async () =>
      (await letters.list()).find((d) => d.letter.outcome.eventId === event.eventId),
    );
    expect(requestsTo('/down')).toHaveLength(4);
    expect(letter.letter).toMatchObject({ attempts: 4, lastStatus: 503, reason: 'the receiver answered 503' });
    down = false;
    expect(await letters.replay(event.eventId)).toBe(1);
    await eventually(() => requestsTo('/down').length === 5);
    const ids = new Set(requestsTo('/down').map((r) => r.headers['webhook-id']));
    expect([...ids]).toEqual([event.eventId]);
    expect((await letters.list()).some((d) => d.letter.outcome.eventId === event.eventId)).toBe(false);
  });

  it('dead-letters at once, without a request, an outcome whose webhook the SSRF guard refuses', async () => {
    const event = await publish('/internal', 'http://10.1.2.3');
    const letter = await eventually(async () =>
      (await new WebhookDeadLetters(nc).list()).find((d) => d.letter.outcome.eventId === event.eventId),
    );
    expect(letter.letter).toMatchObject({ attempts: 1, lastStatus: null });
    expect(letter.letter.reason).toContain('10.1.2.3');
  });

  it('waits, without using an attempt, while the signing secret cannot be read (key store away), then delivers once', async () => {
    // More failed lookups than the schedule has attempts (4): were they attempts, the outcome would be dead-lettered.
    secretFailures.set('key-away', 6);
    const event = await publish('/secret-away', receiver.url, 'key-away');
    await eventually(() => requestsTo('/secret-away').length === 1, 30_000);
    expect(secretFailures.get('key-away')).toBe(0);
    await new Promise((r) => setTimeout(r, 300));
    expect(requestsTo('/secret-away')).toHaveLength(1);
    expect((await new WebhookDeadLetters(nc).list()).some((d) => d.letter.outcome.eventId === event.eventId)).toBe(
      false,
    );
  });
});
