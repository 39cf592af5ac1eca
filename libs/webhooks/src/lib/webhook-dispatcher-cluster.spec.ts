import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import {
  AckPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  jetstream,
  jetstreamManager,
  StorageType,
  type JetStreamManager,
} from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { CONSUMERS, STREAMS, SUBJECTS, type TaskFinishedEvent } from '@trawl/contracts';
import { connectNats, streamReplicas } from '@trawl/messaging';
import {
  eventually,
  startLoopbackHttp,
  startNatsCluster,
  type LoopbackServer,
  type TestNatsCluster,
} from '@trawl/testing';
import { WebhookDispatcher } from './webhook-dispatcher.service.js';
import { WebhookSender } from './webhook-sender.service.js';
import { WebhookUrlGuard } from './webhook-url.guard.js';

jest.setTimeout(180_000);

const SECRET = `whsec_${Buffer.from('dispatcher-cluster-spec-secret-0123').toString('base64')}`;

describe('WebhookDispatcher on a 3-node JetStream cluster (real nats-servers, loopback receiver)', () => {
  let cluster: TestNatsCluster;
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  let receiver: LoopbackServer;
  let sender: WebhookSender;
  let dispatcher: WebhookDispatcher | undefined;
  const logs: string[] = [];
  const states: string[] = [];

  beforeAll(async () => {
    cluster = await startNatsCluster({ nodes: 3 });
    nc = await connectNats(cluster.urls(), 'dispatcher-cluster-spec');
    jsm = await jetstreamManager(nc);
    receiver = await startLoopbackHttp(async (_req, res) => {
      await new Promise((r) => setTimeout(r, 5));
      res.end();
    });
    sender = new WebhookSender(new WebhookUrlGuard(['127.0.0.1']), async () => SECRET, { timeoutMs: 2000 });
  });

  afterEach(async () => {
    await dispatcher?.close();
    dispatcher = undefined;
  });

  afterAll(async () => {
    await sender?.close();
    await nc?.close();
    await receiver?.close();
    await cluster?.stop();
  });

  function newDispatcher(): WebhookDispatcher {
    return new WebhookDispatcher(nc, sender, {
      concurrency: 16,
      maxPending: 1000,
      ackWaitMs: 10_000,
      retry: { schedule: [200, 200, 500, 1000, 2000, 5000], jitter: 0, maxRetryAfterMs: 1000 },
      replicas: streamReplicas(nc, undefined),
      watchIntervalMs: 1000,
      log: (level, message) => logs.push(`${level}: ${message}`),
      onState: (state) => states.push(state),
    });
  }

  async function dropStreams(): Promise<void> {
    for (const s of [STREAMS.taskOutcomes.name, STREAMS.webhookDeadLetters.name]) {
      await jsm.streams.delete(s).catch(() => undefined);
    }
  }

  let n = 0;
  function outcome(path: string): TaskFinishedEvent {
    n++;
    return {
      eventId: `scrape_cluster${n}-1`,
      event: 'task.completed',
      webhook: `${receiver.url}${path}`,
      task: {
        taskId: `scrape_cluster${n}`,
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

  /** Publishes as the outcome publisher does: same msgID on every attempt, retried until stored. */
  async function publish(event: TaskFinishedEvent): Promise<void> {
    const js = jetstream(nc);
    for (let attempt = 1; ; attempt++) {
      try {
        await js.publish(SUBJECTS.taskFinished, JSON.stringify(event), { msgID: event.eventId, timeout: 2000 });
        return;
      } catch (e) {
        if (attempt > 100) throw e;
        await new Promise((r) => setTimeout(r, 250));
      }
    }
  }

  const deliveredIds = (prefix: string) =>
    new Set(receiver.requests.filter((r) => r.url.startsWith(prefix)).map((r) => String(r.headers['webhook-id'])));

  it('creates the outcome and dead-letter streams and its consumer with 3 replicas on a 3-node cluster', async () => {
    await dropStreams();
    dispatcher = newDispatcher();
    await dispatcher.start();
    expect((await jsm.streams.info(STREAMS.taskOutcomes.name)).config.num_replicas).toBe(3);
    expect((await jsm.streams.info(STREAMS.webhookDeadLetters.name)).config.num_replicas).toBe(3);
    const consumer = await jsm.consumers.info(STREAMS.taskOutcomes.name, CONSUMERS.webhookDispatcher);
    expect(consumer.config.num_replicas).toBe(3);
    await eventually(
      async () =>
        (await jsm.consumers.info(STREAMS.taskOutcomes.name, CONSUMERS.webhookDispatcher)).cluster?.replicas?.length ===
        2,
      30_000,
    );
  });

  it('raises an existing one-replica stream and its consumer to 3 replicas at start, keeping their outcomes', async () => {
    await dropStreams();
    await jsm.streams.add({
      name: STREAMS.taskOutcomes.name,
      subjects: [...STREAMS.taskOutcomes.subjects],
      storage: StorageType.File,
      num_replicas: 1,
    });
    await jsm.consumers.add(STREAMS.taskOutcomes.name, {
      durable_name: CONSUMERS.webhookDispatcher,
      ack_policy: AckPolicy.Explicit,
      filter_subject: SUBJECTS.taskFinished,
      num_replicas: 1,
    });
    const before = outcome('/raised');
    await publish(before);
    expect((await jsm.streams.info(STREAMS.taskOutcomes.name)).config.num_replicas).toBe(1);
    dispatcher = newDispatcher();
    await dispatcher.start();
    const info = await jsm.streams.info(STREAMS.taskOutcomes.name);
    expect(info.config.num_replicas).toBe(3);
    expect((await jsm.consumers.info(STREAMS.taskOutcomes.name, CONSUMERS.webhookDispatcher)).config.num_replicas).toBe(
      3,
    );
    expect(logs).toContain(`info: stream ${STREAMS.taskOutcomes.name}: replicas 1 -> 3`);
    await eventually(() => deliveredIds('/raised').has(before.eventId), 30_000);
    // Every replica catches up (the stream survives its first leader's loss with its outcome).
    await eventually(async () => {
      const c = (await jsm.streams.info(STREAMS.taskOutcomes.name)).cluster;
      return (c?.replicas ?? []).length === 2 && (c?.replicas ?? []).every((r) => r.current);
    }, 30_000);
  });

  it('notices its consumer is gone, warns, says lost meanwhile, rebinds, and delivers what comes after', async () => {
    dispatcher = newDispatcher();
    await dispatcher.start();
    expect(dispatcher.state()).toBe('bound');
    states.length = 0;
    // Retried while JetStream is busy; a delete that went through before its reply was lost answers "not found".
    await eventually(
      () =>
        jsm.consumers.delete(STREAMS.taskOutcomes.name, CONSUMERS.webhookDispatcher).catch((e: unknown) => {
          if (e instanceof JetStreamApiError && e.code === JetStreamApiCodes.ConsumerNotFound) return true;
          throw e;
        }),
      30_000,
      500,
    );
    await eventually(() => logs.some((l) => l.startsWith('warn: lost the outcome consumer')), 20_000);
    await eventually(() => dispatcher?.state() === 'bound', 30_000);
    expect(logs).toContain('info: outcome consumer bound again; taking outcomes');
    // (Under load a later check may time out and rebind once more: the first two are this loss and its rebinding.)
    expect(states.slice(0, 2)).toEqual(['lost', 'bound']);
    const after = outcome('/rebound');
    await publish(after);
    await eventually(() => deliveredIds('/rebound').has(after.eventId), 30_000);
  });

  it('delivers every outcome, each stored once, when the outcome stream leader is SIGKILLed mid-flow', async () => {
    dispatcher = newDispatcher();
    await dispatcher.start();
    const events = Array.from({ length: 300 }, () => outcome('/failover'));
    const first = events.slice(0, 150);
    const rest = events.slice(150);
    const publishing = (async () => {
      for (let i = 0; i < first.length; i += 10) await Promise.all(first.slice(i, i + 10).map(publish));
    })();
    await eventually(() => deliveredIds('/failover').size >= 50, 60_000);
    const leader = await cluster.streamLeader(STREAMS.taskOutcomes.name);
    await cluster.kill(leader.name);
    await publishing;
    for (let i = 0; i < rest.length; i += 10) await Promise.all(rest.slice(i, i + 10).map(publish));
    await eventually(() => deliveredIds('/failover').size === events.length, 120_000, 200);
    expect([...deliveredIds('/failover')].sort()).toEqual(events.map((e) => e.eventId).sort());
    const next = await cluster.streamLeader(STREAMS.taskOutcomes.name);
    expect(next.name).not.toBe(leader.name);
    // Stored once each: the stream holds exactly the outcomes published to it (de-duplicated by event id).
    const stored = new Map<string, number>();
    const { state } = await jsm.streams.info(STREAMS.taskOutcomes.name);
    for (let seq = state.first_seq; seq <= state.last_seq; seq++) {
      const m = await jsm.streams.getMessage(STREAMS.taskOutcomes.name, { seq }).catch(() => null);
      const id = m?.json<TaskFinishedEvent>().eventId;
      if (id?.startsWith('scrape_cluster')) stored.set(id, (stored.get(id) ?? 0) + 1);
    }
    for (const e of events) expect(stored.get(e.eventId)).toBe(1);
  });
});
