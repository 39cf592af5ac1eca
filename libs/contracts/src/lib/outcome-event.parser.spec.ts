import { describe, expect, it } from '@jest/globals';
import type { BatchWebhookEvent, CrawlWebhookEvent } from './crawl.types.js';
import { WebhookDeadLetterDto } from './dto/webhook-dead-letter.dto.js';
import { parseDto } from './dto.parser.js';
import { parseOutcomeEvent } from './outcome-event.parser.js';
import { crawlDocumentSubject, STREAMS, SUBJECT_TABLE, SUBJECTS } from './subjects.constants.js';
import type { TaskFinishedEvent } from './task.types.js';

const CRAWL_ID = '0123456789abcdef0123456789abcdef';

const taskOutcome: TaskFinishedEvent = {
  eventId: 'job-1:completed',
  event: 'task.completed',
  webhook: 'https://hooks.example/trawl',
  task: {
    taskId: 'job-1',
    status: 'completed',
    params: { url: 'https://example.com/' },
    data: { ok: true },
    error: null,
    progress: 100,
    attemptsMade: 1,
    finishedOn: 2,
    processedOn: 1,
    stacktrace: [],
  },
  occurredAt: 3,
};

const document = {
  sourceURL: 'https://example.com/a',
  taskId: 't',
  edgeId: 'e',
  status: 200,
  rawStatus: 200,
  markdown: '# A',
  metadata: {
    title: 'A',
    url: 'https://example.com/a',
    sourceURL: 'https://example.com/a',
    statusCode: 200,
    contentType: 'text/html',
    engine: 'http',
  },
};

const crawlPage: CrawlWebhookEvent = {
  eventId: `${CRAWL_ID}-page-abc`,
  event: 'crawl.page',
  webhook: 'https://hooks.example/trawl',
  apiKeyId: 'key-a',
  crawl: { id: CRAWL_ID, status: 'scraping', total: 3, completed: 1, documents: 1, data: [document] as never },
  occurredAt: 4,
};

const crawlFailed: CrawlWebhookEvent = {
  eventId: `${CRAWL_ID}-end`,
  event: 'crawl.failed',
  webhook: 'https://hooks.example/trawl',
  crawl: {
    id: CRAWL_ID,
    status: 'failed',
    total: 1,
    completed: 1,
    documents: 0,
    error: { code: 'SERVICE_UNAVAILABLE', message: 'no fleet' },
  },
  occurredAt: 5,
};

function errorOf(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  return undefined;
}

describe('the outcome stream: task outcomes and crawl events (task.finished.v1, ADR 0026)', () => {
  it("is checked by the row's parser, which accepts a task outcome and each crawl event as published", () => {
    expect(SUBJECT_TABLE.taskFinished.payload.name).toBe('parseOutcomeEvent');
    expect(parseOutcomeEvent(taskOutcome)).toMatchObject({ event: 'task.completed', task: { taskId: 'job-1' } });
    expect(parseOutcomeEvent(crawlPage)).toMatchObject({ event: 'crawl.page', crawl: { id: CRAWL_ID, documents: 1 } });
    expect(parseOutcomeEvent(crawlFailed)).toMatchObject({ crawl: { error: { code: 'SERVICE_UNAVAILABLE' } } });
    const started = { ...crawlPage, event: 'crawl.started', crawl: { id: CRAWL_ID, status: 'scraping' } };
    expect(parseOutcomeEvent(started)).toMatchObject({ event: 'crawl.started' });
  });

  it('refuses a crawl event that is not one, naming the field', () => {
    expect(errorOf(() => parseOutcomeEvent({ ...crawlPage, crawl: { ...crawlPage.crawl, id: 'x' } }))).toMatchObject({
      code: 'VALIDATION_FAILED',
      field: 'crawl.id',
    });
    expect(
      errorOf(() => parseOutcomeEvent({ ...crawlPage, crawl: { ...crawlPage.crawl, status: 'done' } })),
    ).toMatchObject({ code: 'VALIDATION_FAILED', field: 'crawl.status' });
    expect(errorOf(() => parseOutcomeEvent({ ...crawlPage, task: taskOutcome.task }))).toMatchObject({
      code: 'VALIDATION_FAILED',
      field: 'task',
    });
    const { webhook: _webhook, ...noWebhook } = crawlPage;
    expect(errorOf(() => parseOutcomeEvent(noWebhook))).toMatchObject({ code: 'VALIDATION_FAILED', field: 'webhook' });
    const { crawl: _crawl, ...noCrawl } = crawlPage;
    expect(errorOf(() => parseOutcomeEvent(noCrawl))).toMatchObject({ code: 'VALIDATION_FAILED', field: 'crawl' });
    // An event name of neither kind is read as a task outcome, and refused as one.
    expect(errorOf(() => parseOutcomeEvent({ ...crawlPage, event: 'crawl.exploded' }))).toMatchObject({
      code: 'VALIDATION_FAILED',
    });
  });

  it('keeps either kind in a dead letter, and refuses a dead letter whose outcome is neither', () => {
    const letter = { reason: 'gave up', attempts: 3, lastStatus: 500, deadLetteredAt: 6 };
    expect(parseDto(WebhookDeadLetterDto, { ...letter, outcome: crawlPage }).outcome).toMatchObject({
      event: 'crawl.page',
    });
    expect(parseDto(WebhookDeadLetterDto, { ...letter, outcome: taskOutcome }).outcome).toMatchObject({
      event: 'task.completed',
    });
    expect(
      errorOf(() => parseDto(WebhookDeadLetterDto, { ...letter, outcome: { ...crawlPage, crawl: {} } })),
    ).toMatchObject({ code: 'VALIDATION_FAILED', field: 'outcome' });
  });
});

describe("the crawl's rows", () => {
  it('keep documents under one wildcard subject, one subject a crawl', () => {
    expect(SUBJECTS.crawlDocument).toBe('crawl.document.v1.>');
    expect(STREAMS.crawlDocuments).toEqual({ name: 'CRAWL_DOCUMENTS', subjects: ['crawl.document.v1.>'] });
    expect(crawlDocumentSubject(CRAWL_ID)).toBe(`crawl.document.v1.${CRAWL_ID}`);
    expect(SUBJECT_TABLE.crawlDocument.payload.parse(document)).toBe(document);
    const { statusCode: _s, ...noStatus } = document.metadata;
    expect(errorOf(() => SUBJECT_TABLE.crawlDocument.payload.parse({ ...document, metadata: noStatus }))).toMatchObject(
      {
        code: 'VALIDATION_FAILED',
        field: 'metadata.statusCode',
      },
    );
  });

  it('check the requests task-service serves: ids, cursors, and the crawl and map bodies with their defaults', () => {
    const start = SUBJECT_TABLE.crawlStart.request.parse({ request: { url: 'https://example.com/' }, apiKeyId: 'k' });
    expect(start.request).toMatchObject({ url: 'https://example.com/', limit: 100 });
    expect(errorOf(() => SUBJECT_TABLE.crawlStart.request.parse({ apiKeyId: 'k' }))).toMatchObject({
      code: 'VALIDATION_FAILED',
      field: 'request',
    });
    expect(SUBJECT_TABLE.crawlGet.request.parse({ id: CRAWL_ID, cursor: 7 })).toMatchObject({
      id: CRAWL_ID,
      cursor: 7,
    });
    expect(errorOf(() => SUBJECT_TABLE.crawlGet.request.parse({ id: CRAWL_ID, cursor: 1.5 }))).toMatchObject({
      field: 'cursor',
    });
    expect(errorOf(() => SUBJECT_TABLE.crawlCancel.request.parse({ id: CRAWL_ID, cursor: 2 }))).toMatchObject({
      field: 'cursor',
    });
    const map = SUBJECT_TABLE.mapSite.request.parse({ request: { url: 'https://example.com/', limit: 10 } });
    expect(map.request).toMatchObject({ url: 'https://example.com/', limit: 10, sitemap: 'include' });
    expect(errorOf(() => SUBJECT_TABLE.mapSite.request.parse({ request: { url: 'ftp://x/' } }))).toMatchObject({
      field: 'request.url',
    });
  });
});

describe('URL batch events on the outcome stream', () => {
  const batchPage: BatchWebhookEvent = {
    eventId: 'job-1-5',
    event: 'batch_scrape.page',
    webhook: 'https://hooks.example/trawl',
    apiKeyId: 'key-a',
    batch: { id: '6b1f3a2e-6d1c-4c55-9a3e-2f0d8c1b7e90', data: [document] as never },
    form: 'firecrawl',
    headers: { 'x-run': '7' },
    metadata: { run: 7 },
    occurredAt: 4,
  };

  it('are read as batch events, checked as crawl events are, and carried by a dead letter', () => {
    expect(parseOutcomeEvent(batchPage)).toEqual(batchPage);
    const started = {
      ...batchPage,
      eventId: 'b-started',
      event: 'batch_scrape.started',
      batch: { id: batchPage.batch.id, total: 2 },
    };
    expect(parseOutcomeEvent(started)).toEqual(started);
    expect(() => parseOutcomeEvent({ ...batchPage, batch: { id: 'not-a-batch' } })).toThrow();
    expect(() => parseOutcomeEvent({ ...batchPage, batch: undefined })).toThrow();
    expect(() => parseOutcomeEvent({ ...batchPage, form: 'other' })).toThrow();
    expect(() => parseOutcomeEvent({ ...batchPage, event: 'batch_scrape.other' })).toThrow();
    const letter = { outcome: batchPage, reason: 'gave up', attempts: 3, lastStatus: 500, deadLetteredAt: 6 };
    expect(() => parseDto(WebhookDeadLetterDto, letter)).not.toThrow();
    expect(() => parseDto(WebhookDeadLetterDto, { ...letter, outcome: { ...batchPage, webhook: 7 } })).toThrow();
  });
});
