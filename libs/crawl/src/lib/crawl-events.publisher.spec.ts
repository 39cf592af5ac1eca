import { describe, expect, it } from '@jest/globals';
import type { JetStreamClient } from '@nats-io/jetstream';
import type { CrawlWebhookEvent } from '@trawl/contracts';
import { CrawlEventsPublisher } from './crawl-events.publisher.js';

function publisher() {
  const published: CrawlWebhookEvent[] = [];
  const js = {
    publish: async (_subject: string, data: Uint8Array) => {
      published.push(JSON.parse(new TextDecoder().decode(data)) as CrawlWebhookEvent);
      return { seq: published.length };
    },
  } as unknown as JetStreamClient;
  const events = new CrawlEventsPublisher(js, {
    attempts: 1,
    retryDelayMs: 1,
    timeoutMs: 1000,
    maxPayloadBytes: () => 1024 * 1024,
  });
  return { events, published };
}

const id = 'a'.repeat(32);

describe('crawl events and their webhook options', () => {
  it("carries Firecrawl's form, the headers and the metadata on each event", async () => {
    const { events, published } = publisher();
    const webhookOptions = { format: 'firecrawl' as const, headers: { 'x-run': '7' }, metadata: { run: 7 } };
    await events.page({ id, owner: 'k', webhook: 'https://hook.test/', webhookOptions }, 'https://a.test/', {
      id,
      status: 'scraping',
    });
    expect(published).toHaveLength(1);
    expect(published[0]).toMatchObject({
      event: 'crawl.page',
      webhook: 'https://hook.test/',
      apiKeyId: 'k',
      form: 'firecrawl',
      headers: { 'x-run': '7' },
      metadata: { run: 7 },
    });
  });

  it('publishes only the events the webhook asked for; without options, every event in Trawl form', async () => {
    const { events, published } = publisher();
    const only = { format: 'firecrawl' as const, events: ['completed' as const] };
    await events.page({ id, owner: undefined, webhook: 'https://hook.test/', webhookOptions: only }, 'k1', {
      id,
      status: 'scraping',
    });
    expect(published).toHaveLength(0);
    await events.page({ id, owner: undefined, webhook: 'https://hook.test/' }, 'k2', { id, status: 'scraping' });
    expect(published).toHaveLength(1);
    expect(published[0]?.form).toBeUndefined();
  });
});
