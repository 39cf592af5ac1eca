import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import type { TaskFinishedEvent } from '@trawl/contracts';
import { activeTraceIds, startTelemetry, traced, type Telemetry } from '@trawl/telemetry';
import { startLoopbackHttp, type LoopbackServer } from '@trawl/testing';
import { WebhookSender } from './webhook-sender.service.js';
import { WebhookSigner } from './webhook-signer.service.js';
import { WebhookUrlGuard } from './webhook-url.guard.js';

const SECRET = `whsec_${Buffer.from('sender-trace-spec-secret-0123456789').toString('base64')}`;

describe('WebhookSender with tracing on', () => {
  const exporter = new InMemorySpanExporter();
  let telemetry: Telemetry;
  let receiver: LoopbackServer;
  let sender: WebhookSender;

  beforeAll(async () => {
    telemetry = await startTelemetry({
      serviceName: 'webhooks-test',
      env: {},
      spanExporter: exporter,
      instrumentations: false,
    });
    receiver = await startLoopbackHttp((_req, res) => {
      res.statusCode = 204;
      res.end();
    });
    sender = new WebhookSender(new WebhookUrlGuard(['127.0.0.1']), async () => SECRET, { timeoutMs: 2000 });
  });

  afterAll(async () => {
    await sender?.close();
    await receiver?.close();
    await telemetry?.shutdown();
  });

  const event = (webhook: string): TaskFinishedEvent => ({
    eventId: 'scrape_t-1',
    event: 'task.completed',
    webhook,
    task: {
      taskId: 'scrape_t',
      status: 'completed',
      params: {},
      data: { markdown: '# hi' },
      error: null,
      progress: 100,
      attemptsMade: 1,
      finishedOn: 1,
      processedOn: 1,
      stacktrace: [],
    },
    occurredAt: 1,
  });

  it('sends the active span as traceparent, and the signature over id.timestamp.body still verifies', async () => {
    const now = 1_700_000_000_000;
    let ids: { traceId: string; spanId: string } | undefined;
    await traced('delivery', async () => {
      ids = activeTraceIds();
      expect(await sender.deliver(event(`${receiver.url}/hook`), now)).toEqual({ outcome: 'delivered', status: 204 });
    });

    const [posted] = receiver.requests;
    expect(posted?.headers['traceparent']).toBe(`00-${ids?.traceId}-${ids?.spanId}-01`);
    const expected = new WebhookSigner(SECRET).sign('scrape_t-1', now / 1000, posted?.body ?? '');
    expect(posted?.headers['webhook-id']).toBe('scrape_t-1');
    expect(posted?.headers['webhook-signature']).toBe(expected['webhook-signature']);
  });
});
