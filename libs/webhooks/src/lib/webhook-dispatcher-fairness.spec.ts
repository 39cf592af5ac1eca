import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { SUBJECTS, type TaskFinishedEvent } from '@trawl/contracts';
import { connectNats, ensureOutcomeStream } from '@trawl/messaging';
import { eventually, startLoopbackHttp, startNats, type LoopbackServer, type TestServer } from '@trawl/testing';
import { WebhookDispatcher } from './webhook-dispatcher.service.js';
import { WebhookSender } from './webhook-sender.service.js';
import { WebhookUrlGuard } from './webhook-url.guard.js';

const SECRET = `whsec_${Buffer.from('fairness-spec-secret-0123456789ab').toString('base64')}`;
/**
 * A delivery's deadline: the hanging receiver's requests are aborted after this. The test's claim is an order (B's
 * outcomes all delivered before A's first attempt times out), so the deadline is the margin the dispatcher has to
 * read 310 outcomes and send B's: ample on a slow CI process too (3 s was not, in a long in-band jest run).
 */
const TIMEOUT_MS = 10_000;

/**
 * One tenant's receiver accepts the connection and never answers; another's answers at once. The events each
 * receiver sees, in order, tell whether the healthy one waited for the hanging one's slots.
 */
describe("WebhookDispatcher: one host's hanging receiver does not hold up another's (real NATS JetStream)", () => {
  let nats: TestServer;
  let nc: NatsConnection;
  let sender: WebhookSender;
  let dispatcher: WebhookDispatcher;
  let hanging: LoopbackServer;
  let healthy: LoopbackServer;
  const events: string[] = [];

  beforeAll(async () => {
    nats = await startNats();
    nc = await connectNats([nats.url], 'fairness-spec');
    hanging = await startLoopbackHttp((req) => {
      events.push('a-received');
      req.socket.once('close', () => events.push('a-aborted'));
    });
    healthy = await startLoopbackHttp((_req, res) => {
      events.push('b-delivered');
      res.end();
    });
    sender = new WebhookSender(new WebhookUrlGuard(['127.0.0.1']), async () => SECRET, { timeoutMs: TIMEOUT_MS });
    dispatcher = new WebhookDispatcher(nc, sender, {
      concurrency: 8,
      maxPending: 10_000,
      ackWaitMs: TIMEOUT_MS + 5000,
      retry: { schedule: [200, 200, 200], jitter: 0, maxRetryAfterMs: 1000 },
      hosts: { perHost: 2, circuitFailures: 3, circuitOpenMs: 60_000 },
    });
  });

  afterAll(async () => {
    await dispatcher?.close();
    await sender?.close();
    await nc?.close();
    await Promise.all([hanging?.close(), healthy?.close()]);
    await nats?.stop();
  });

  function event(n: number, base: string): TaskFinishedEvent {
    return {
      eventId: `scrape_fair${n}-1`,
      event: 'task.completed',
      webhook: `${base}/hook/${n}`,
      task: {
        taskId: `scrape_fair${n}`,
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
  }

  it("delivers all of B's outcomes, queued behind 300 of A's, before any of A's first attempts has timed out", async () => {
    await ensureOutcomeStream(await jetstreamManager(nc));
    const js = jetstream(nc);
    for (let i = 0; i < 300; i++) {
      const e = event(i, hanging.url);
      await js.publish(SUBJECTS.taskFinished, JSON.stringify(e), { msgID: e.eventId });
    }
    for (let i = 300; i < 310; i++) {
      const e = event(i, healthy.url);
      await js.publish(SUBJECTS.taskFinished, JSON.stringify(e), { msgID: e.eventId });
    }
    await dispatcher.start();
    await eventually(() => events.filter((e) => e === 'b-delivered').length === 10, 30_000, 20);
    await eventually(() => events.includes('a-aborted'), 40_000, 50);
    const lastB = events.lastIndexOf('b-delivered');
    const firstAbort = events.indexOf('a-aborted');
    expect(lastB).toBeLessThan(firstAbort);
    // A's receiver never had more than its per-host share of requests at once.
    expect(events.slice(0, firstAbort).filter((e) => e === 'a-received')).toHaveLength(2);
  }, 90_000);
});
