import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { TaskFinishedEvent } from '@trawl/contracts';
import { startLoopbackHttp, type LoopbackServer } from '@trawl/testing';
import { WebhookSender } from './webhook-sender.service.js';
import { WebhookUrlGuard } from './webhook-url.guard.js';

const SECRET = `whsec_${Buffer.from('sender-spec-secret-0123456789abcdef').toString('base64')}`;

describe('WebhookSender (loopback receiver)', () => {
  let receiver: LoopbackServer;
  let sender: WebhookSender;

  beforeAll(async () => {
    receiver = await startLoopbackHttp(async (req, res) => {
      if (req.url === '/busy') {
        res.statusCode = 429;
        res.setHeader('retry-after', '7');
      } else if (req.url === '/gone') res.statusCode = 410;
      else if (req.url === '/redirect') {
        res.statusCode = 302;
        res.setHeader('location', 'http://127.0.0.1:1/');
      } else if (req.url === '/hang') await new Promise((r) => setTimeout(r, 1500));
      else res.statusCode = 204;
      res.end();
    });
    sender = new WebhookSender(new WebhookUrlGuard(['127.0.0.1']), async () => SECRET, { timeoutMs: 500 });
  });

  afterAll(async () => {
    await sender?.close();
    await receiver?.close();
  });

  const event = (webhook: string): TaskFinishedEvent => ({
    eventId: 'scrape_x-1',
    event: 'task.failed',
    webhook,
    task: {
      taskId: 'scrape_x',
      status: 'failed',
      params: {},
      data: null,
      error: null,
      progress: 0,
      attemptsMade: 1,
      finishedOn: 1,
      processedOn: 1,
      stacktrace: [],
    },
    occurredAt: 1,
  });

  it('counts any 2xx as delivered', async () => {
    expect(await sender.deliver(event(`${receiver.url}/ok`))).toEqual({ outcome: 'delivered', status: 204 });
  });

  it('asks for a retry on 429 and passes on Retry-After', async () => {
    expect(await sender.deliver(event(`${receiver.url}/busy`))).toMatchObject({
      outcome: 'retry',
      status: 429,
      retryAfterMs: 7000,
    });
  });

  it('reports 410 Gone as gone (no retry)', async () => {
    expect(await sender.deliver(event(`${receiver.url}/gone`))).toMatchObject({ outcome: 'gone', status: 410 });
  });

  it('does not follow a redirect (it is a failed attempt)', async () => {
    expect(await sender.deliver(event(`${receiver.url}/redirect`))).toMatchObject({ outcome: 'retry', status: 302 });
    expect(receiver.requests.filter((r) => r.url === '/')).toHaveLength(0);
  });

  it('asks for a retry when the receiver does not answer in time', async () => {
    expect(await sender.deliver(event(`${receiver.url}/hang`))).toMatchObject({ outcome: 'retry', status: null });
  });

  it('refuses, without a request, a webhook on a private or loopback address that is not allowlisted', async () => {
    const strict = new WebhookSender(new WebhookUrlGuard([]), async () => SECRET, { timeoutMs: 500 });
    const before = receiver.requests.length;
    expect(await strict.deliver(event(`${receiver.url}/ok`))).toMatchObject({ outcome: 'refused' });
    expect(await strict.deliver(event('http://192.168.1.10/hook'))).toMatchObject({ outcome: 'refused' });
    expect(receiver.requests.length).toBe(before);
    await strict.close();
  });

  it('refuses, without a request, an outcome of a task submitted without a webhook', async () => {
    const before = receiver.requests.length;
    const { webhook: _none, ...withoutWebhook } = event(`${receiver.url}/ok`);
    void _none;
    expect(await sender.deliver(withoutWebhook)).toEqual({ outcome: 'refused', reason: 'the task has no webhook' });
    expect(receiver.requests.length).toBe(before);
  });
});
