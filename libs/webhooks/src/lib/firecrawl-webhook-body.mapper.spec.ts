import { describe, expect, it } from '@jest/globals';
import type { CrawlWebhookEvent } from '@trawl/contracts';
import { customHeadersOf, webhookBody } from './webhook-sender.service.js';

const document = {
  sourceURL: 'https://a.test/x',
  taskId: 't',
  edgeId: 'e',
  status: 200,
  rawStatus: 200,
  markdown: '# X',
  html: Buffer.from(encodeURIComponent('<p>é</p>')).toString('base64'),
  metadata: {
    title: 'X',
    url: 'https://a.test/x',
    engine: 'http' as const,
    contentType: 'text/html',
    sourceURL: 'https://a.test/x?asked',
    statusCode: 200,
  },
};

function event(over: Partial<CrawlWebhookEvent>): CrawlWebhookEvent {
  return {
    eventId: 'c-page-1',
    event: 'crawl.page',
    webhook: 'https://hook.test/',
    crawl: { id: 'a'.repeat(32), status: 'scraping', data: [document] },
    occurredAt: 1,
    ...over,
  };
}

describe("crawl webhooks in Firecrawl's form", () => {
  it("renders crawl.page as Firecrawl's object: success, type, id, data (html decoded), metadata", () => {
    const body = JSON.parse(webhookBody(event({ form: 'firecrawl', metadata: { run: 7 } })));
    expect(body).toEqual({
      success: true,
      type: 'crawl.page',
      id: 'a'.repeat(32),
      data: [
        {
          markdown: '# X',
          html: '<p>é</p>',
          metadata: {
            title: 'X',
            url: 'https://a.test/x',
            contentType: 'text/html',
            sourceURL: 'https://a.test/x?asked',
            statusCode: 200,
          },
        },
      ],
      metadata: { run: 7 },
    });
  });

  it('renders crawl.failed with success false and the error as a string; started with empty data', () => {
    const failed = JSON.parse(
      webhookBody(
        event({
          form: 'firecrawl',
          event: 'crawl.failed',
          crawl: { id: 'b'.repeat(32), status: 'failed', error: { code: 'SERVICE_UNAVAILABLE', message: 'gone' } },
        }),
      ),
    );
    expect(failed).toEqual({
      success: false,
      type: 'crawl.failed',
      id: 'b'.repeat(32),
      data: [],
      metadata: {},
      error: 'gone',
    });
    const started = JSON.parse(
      webhookBody(event({ form: 'firecrawl', event: 'crawl.started', crawl: { id: 'c', status: 'scraping' } })),
    );
    expect(started).toMatchObject({ success: true, type: 'crawl.started', data: [] });
  });

  it("keeps Trawl's own body when no form is asked", () => {
    expect(JSON.parse(webhookBody(event({})))).toMatchObject({ event: 'crawl.page', id: 'a'.repeat(32) });
  });

  it("sends the crawl's headers, never one that frames the request or the signature's", () => {
    expect(
      customHeadersOf(
        event({
          headers: {
            Authorization: 'Bearer t',
            'x-run': '7',
            'Content-Type': 'text/plain',
            'webhook-signature': 'v1,forged',
            Host: 'evil.test',
          },
        }),
      ),
    ).toEqual({ Authorization: 'Bearer t', 'x-run': '7' });
  });
});
