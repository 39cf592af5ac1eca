import { describe, expect, it } from '@jest/globals';
import type { BatchWebhookEvent, CrawlWebhookEvent } from '@trawl/contracts';
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

describe("URL batch webhooks in Firecrawl's form", () => {
  const BATCH = '6b1f3a2e-6d1c-4c55-9a3e-2f0d8c1b7e90';
  function batchEvent(over: Partial<BatchWebhookEvent>): BatchWebhookEvent {
    return {
      eventId: 'job-1-5',
      event: 'batch_scrape.page',
      webhook: 'https://hook.test/',
      batch: { id: BATCH, data: [document] },
      form: 'firecrawl',
      metadata: { run: 7 },
      headers: { 'x-run': '7' },
      occurredAt: 1,
      ...over,
    };
  }

  it("renders batch_scrape.page with the page's document mapped as a crawl page's", () => {
    const page = JSON.parse(webhookBody(batchEvent({})));
    const crawlPage = JSON.parse(webhookBody(event({ form: 'firecrawl', metadata: { run: 7 } })));
    expect(page).toEqual({ ...crawlPage, type: 'batch_scrape.page', id: BATCH });
    expect(customHeadersOf(batchEvent({}))).toEqual({ 'x-run': '7' });
  });

  it('renders started and completed with empty data, and a failed page with success false and its error', () => {
    for (const type of ['batch_scrape.started', 'batch_scrape.completed'] as const) {
      expect(JSON.parse(webhookBody(batchEvent({ event: type, batch: { id: BATCH, total: 2 } })))).toEqual({
        success: true,
        type,
        id: BATCH,
        data: [],
        metadata: { run: 7 },
      });
    }
    const failed = batchEvent({ batch: { id: BATCH, error: { code: 'TARGET_UNREACHABLE', message: 'refused' } } });
    expect(JSON.parse(webhookBody(failed))).toEqual({
      success: false,
      type: 'batch_scrape.page',
      id: BATCH,
      data: [],
      metadata: { run: 7 },
      error: 'refused',
    });
  });

  it("keeps Trawl's own body when no form is asked", () => {
    const { form: _form, ...trawl } = batchEvent({});
    void _form;
    expect(JSON.parse(webhookBody(trawl))).toMatchObject({ event: 'batch_scrape.page', id: BATCH });
  });
});
