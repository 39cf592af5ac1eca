import { describe, expect, it } from '@jest/globals';
import type { JetStreamClient } from '@nats-io/jetstream';
import { parseOutcomeEvent, SUBJECTS, type BatchWebhookEvent, type TaskRecord } from '@trawl/contracts';
import { batchEventId, BatchEventsPublisher, type BatchEventsTarget } from './batch-events.publisher.js';
import type { BatchPageCount, BatchPagesStore } from './batch-pages.store.js';

const BATCH = '6b1f3a2e-6d1c-4c55-9a3e-2f0d8c1b7e90';

interface Sent {
  subject: string;
  msgID: string;
  event: BatchWebhookEvent;
}

/** A JetStream client that records what is published; its first `failures` publishes fail. */
function recordingJs(failures = 0): { js: JetStreamClient; sent: Sent[] } {
  const sent: Sent[] = [];
  let left = failures;
  const js = {
    publish: (subject: string, data: Uint8Array, opts: { msgID: string }) => {
      if (left-- > 0) return Promise.reject(new Error('NATS is down'));
      const event = JSON.parse(new TextDecoder().decode(data)) as BatchWebhookEvent;
      sent.push({ subject, msgID: opts.msgID, event });
      return Promise.resolve({ seq: sent.length, duplicate: false, stream: 'TASK_OUTCOMES' });
    },
  } as unknown as JetStreamClient;
  return { js, sent };
}

/** A page count that answers complete on the `completeAt`-th distinct job. */
function pagesStore(completeAt: number): { store: BatchPagesStore; finished: string[] } {
  const finished: string[] = [];
  const store = {
    finish: (_batch: string, jobId: string, total: number): Promise<BatchPageCount> => {
      const counted = !finished.includes(jobId);
      if (counted) finished.push(jobId);
      return Promise.resolve({
        counted,
        finished: finished.length,
        complete: finished.length >= Math.min(total, completeAt),
      });
    },
  } as unknown as BatchPagesStore;
  return { store, finished };
}

function target(over: Partial<BatchEventsTarget['options']> = {}): BatchEventsTarget {
  return {
    webhook: 'https://hooks.test/b',
    options: { batchId: BATCH, format: 'firecrawl', headers: { 'x-run': '7' }, metadata: { run: 7 }, ...over },
    total: 2,
    apiKeyId: 'key-a',
  };
}

function task(over: Partial<TaskRecord>): TaskRecord {
  return {
    taskId: 'scrape_1',
    status: 'completed',
    params: { url: 'https://a.test/1?asked' },
    data: {
      sourceURL: 'https://a.test/1?asked',
      taskId: 'scrape_1',
      edgeId: 'e',
      status: 200,
      rawStatus: 203,
      markdown: '# One',
      metadata: { title: 'One', url: 'https://a.test/1' },
    },
    error: null,
    progress: 100,
    attemptsMade: 1,
    finishedOn: 5,
    processedOn: 4,
    stacktrace: [],
    ...over,
  };
}

const options = { attempts: 3, retryDelayMs: 1, timeoutMs: 1000, maxPayloadBytes: () => 1024 * 1024 };

describe('BatchEventsPublisher', () => {
  it("scopes a batch's started and completed ids by its owning key, without the key's id in them", () => {
    const a = batchEventId(target(), 'started');
    const b = batchEventId({ ...target(), apiKeyId: 'key-b' }, 'started');
    // A native caller names its own batch id: another key's batch of the same id is not a duplicate of this one.
    expect(a).not.toBe(b);
    expect(a).toMatch(new RegExp(`^[0-9a-f]{16}-${BATCH}-started$`));
    expect(a).not.toContain('key-a');
    expect(batchEventId(target(), 'completed')).toBe(a.replace(/started$/, 'completed'));
  });

  it('publishes started, each page under its outcome id, and completed once the count is complete', async () => {
    const { js, sent } = recordingJs();
    const { store, finished } = pagesStore(2);
    const publisher = new BatchEventsPublisher(js, store, options);
    await publisher.started(target());
    await publisher.page(target(), 'scrape_1', 'scrape_1-5', task({}));
    await publisher.page(
      target(),
      'scrape_2',
      'scrape_2-6',
      task({
        taskId: 'scrape_2',
        status: 'failed',
        data: null,
        error: { code: 'UPSTREAM_ERROR', message: 'refused', retryable: false },
      }),
    );
    expect(finished).toEqual(['scrape_1', 'scrape_2']);
    expect(sent.map((s) => [s.subject, s.msgID, s.event.event])).toEqual([
      [SUBJECTS.taskFinished, batchEventId(target(), 'started'), 'batch_scrape.started'],
      [SUBJECTS.taskFinished, 'scrape_1-5', 'batch_scrape.page'],
      [SUBJECTS.taskFinished, 'scrape_2-6', 'batch_scrape.page'],
      [SUBJECTS.taskFinished, batchEventId(target(), 'completed'), 'batch_scrape.completed'],
    ]);
    // Each is an outcome-stream message the dispatcher accepts.
    for (const s of sent) expect(parseOutcomeEvent(s.event)).toMatchObject({ eventId: s.msgID });
    expect(sent[0]?.event).toMatchObject({
      webhook: 'https://hooks.test/b',
      apiKeyId: 'key-a',
      form: 'firecrawl',
      headers: { 'x-run': '7' },
      metadata: { run: 7 },
      batch: { id: BATCH, total: 2 },
    });
    expect(sent[1]?.event.batch.data?.[0]).toMatchObject({
      markdown: '# One',
      metadata: { title: 'One', url: 'https://a.test/1', sourceURL: 'https://a.test/1?asked', statusCode: 203 },
    });
    expect(sent[2]?.event.batch).toEqual({ id: BATCH, error: { code: 'UPSTREAM_ERROR', message: 'refused' } });
  });

  it("leaves out the events not asked for, and the form when Trawl's is asked", async () => {
    const { js, sent } = recordingJs();
    const publisher = new BatchEventsPublisher(js, pagesStore(1).store, options);
    const pagesOnly = target({ events: ['page'], format: 'trawl' });
    await publisher.started(pagesOnly);
    await publisher.page(pagesOnly, 'scrape_1', 'scrape_1-5', task({}));
    expect(sent.map((s) => s.event.event)).toEqual(['batch_scrape.page']);
    expect(sent[0]?.event.form).toBeUndefined();
  });

  it('sends a page too large for one message without its document, saying so', async () => {
    const { js, sent } = recordingJs();
    const publisher = new BatchEventsPublisher(js, pagesStore(5).store, { ...options, maxPayloadBytes: () => 5000 });
    const big = task({});
    (big.data as { markdown: string }).markdown = 'x'.repeat(10_000);
    await publisher.page(target(), 'scrape_1', 'scrape_1-5', big);
    expect(sent[0]?.event.batch).toMatchObject({ id: BATCH, error: { code: 'PAYLOAD_TOO_LARGE' } });
    expect(sent[0]?.event.batch.data).toBeUndefined();
  });

  it('retries a failed publish, and throws before counting the page when NATS stays away', async () => {
    const flaky = recordingJs(2);
    await new BatchEventsPublisher(flaky.js, pagesStore(5).store, options).started(target());
    expect(flaky.sent.map((s) => s.msgID)).toEqual([batchEventId(target(), 'started')]);
    const down = recordingJs(100);
    const { store, finished } = pagesStore(1);
    await expect(
      new BatchEventsPublisher(down.js, store, options).page(target(), 'scrape_1', 'scrape_1-5', task({})),
    ).rejects.toThrow('NATS is down');
    expect(finished).toEqual([]);
  });
});
