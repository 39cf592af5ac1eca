import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplicationContext } from '@nestjs/common';
import { jetstream } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { Webhook } from 'standardwebhooks';
import { loadEnv, WebhookDispatcherEnv } from '@trawl/config';
import { SUBJECTS, type TaskFinishedEvent } from '@trawl/contracts';
import { connectNats } from '@trawl/messaging';
import { eventually, startLoopbackHttp, startNats, type LoopbackServer, type TestServer } from '@trawl/testing';
import { createWebhookDispatcherApp } from '../src/webhook-dispatcher-app.factory.js';

const SECRET = `whsec_${Buffer.from('dispatcher-app-e2e-secret-0123456789').toString('base64')}`;

describe('webhook-dispatcher app (in-process, real NATS JetStream, loopback receiver)', () => {
  let nats: TestServer;
  let nc: NatsConnection;
  let receiver: LoopbackServer;
  let app: INestApplicationContext;
  let calls = 0;

  beforeAll(async () => {
    nats = await startNats();
    nc = await connectNats([nats.url], 'dispatcher-app-e2e');
    receiver = await startLoopbackHttp((_req, res) => {
      calls++;
      res.statusCode = calls === 1 ? 503 : 200;
      res.end();
    });
    const env = loadEnv(WebhookDispatcherEnv, {
      NATS_URL: nats.url,
      WEBHOOK_SIGNING_SECRET: SECRET,
      WEBHOOK_RETRY_SCHEDULE: '100ms,100ms',
      SSRF_ALLOW_HOSTS: '127.0.0.1',
      LOG_LEVEL: 'silent',
    });
    app = await createWebhookDispatcherApp(env);
    await app.init();
  });

  afterAll(async () => {
    await app?.close();
    await nc?.close();
    await receiver?.close();
    await nats?.stop();
  });

  it('delivers a published outcome signed, retrying a 503 with the same webhook-id', async () => {
    const event: TaskFinishedEvent = {
      eventId: 'mpMaps_e2e-1',
      event: 'task.completed',
      webhook: `${receiver.url}/hook`,
      task: {
        taskId: 'mpMaps_e2e',
        status: 'completed',
        params: { url: 'https://maps.test/place/1', type: 'mp-maps' },
        data: { mp_company_name: 'Cafe' },
        error: null,
        progress: 0,
        attemptsMade: 1,
        finishedOn: 2,
        processedOn: 1,
        stacktrace: [],
      },
      occurredAt: 2,
    };
    await jetstream(nc).publish(SUBJECTS.taskFinished, JSON.stringify(event), { msgID: event.eventId });
    await eventually(() => receiver.requests.length === 2);
    const wh = new Webhook(SECRET);
    for (const req of receiver.requests) {
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      expect(headers['webhook-id']).toBe(event.eventId);
      expect(wh.verify(req.body, headers)).toEqual({ event: 'task.completed', ...event.task });
    }
  });
});
