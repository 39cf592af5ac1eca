import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Job } from 'bullmq';
import { SUBJECT_TABLE } from '@trawl/contracts';
import { startRedis, type TestServer } from '@trawl/testing';
import { standaloneRedisTopology } from '@trawl/redis';
import { TaskCanceller } from './task-canceller.service.js';
import type { TaskJobData } from './task-job-data.types.js';
import { TaskProcessors, type ExtractorClient } from './task-processors.service.js';
import { TaskQueues } from './task-queues.service.js';
import { TaskSubmitter } from './task-submitter.service.js';

/** Submits as task-service's handler does: the payload checked against its row first (SUBJECT_TABLE.taskSubmit). */
async function submitOverWire(submitter: TaskSubmitter, payload: unknown): ReturnType<TaskSubmitter['submit']> {
  return submitter.submit(SUBJECT_TABLE.taskSubmit.request.parse(payload));
}

const WEBHOOK = 'https://hooks.test/h';

/**
 * An extractor stand-in that counts requests and answers when told (or never). `asked` settles once the first request
 * has reached it: a test answers (or cancels a task "waiting for its extractor") only then, never after a guessed
 * pause (the processor reads Redis before it asks, which takes longer than any pause on a loaded machine, and an
 * answer given before the request would be lost, leaving the task waiting for ever).
 */
function extractor() {
  const calls: string[] = [];
  /** The abandon signal each request was sent with (ADR 0043). */
  const signals: (AbortSignal | undefined)[] = [];
  let answer: (value: unknown) => void = () => undefined;
  let reached: () => void = () => undefined;
  const asked = new Promise<void>((resolve) => (reached = resolve));
  const client: ExtractorClient = {
    send: ((subject: string, _payload: unknown, options: { abandon?: AbortSignal }) => {
      calls.push(subject);
      signals.push(options.abandon);
      const reply = new Promise<unknown>((resolve) => (answer = resolve));
      reached();
      return reply;
    }) as unknown as ExtractorClient['send'],
  };
  return { client, calls, signals, asked, answer: (value: unknown) => answer(value) };
}

describe('TaskCanceller and the processors (real Redis)', () => {
  let redis: TestServer;
  let queues: TaskQueues;
  let submitter: TaskSubmitter;
  let canceller: TaskCanceller;

  beforeAll(async () => {
    redis = await startRedis();
    queues = new TaskQueues({ topology: standaloneRedisTopology(redis.url) });
    submitter = new TaskSubmitter(queues, async () => undefined);
    canceller = new TaskCanceller(queues, { settleMs: 0, pollMs: 10 });
  });

  afterAll(async () => {
    await queues?.close();
    await redis?.stop();
  });

  const submitUrl = async (url: string, apiKeyId = 'key-a') => {
    const { jobs } = await submitOverWire(submitter, {
      kind: 'url',
      request: { urls: [url], webhook: WEBHOOK, type: 'scrape' },
      apiKeyId,
    });
    return jobs[0]!.id;
  };
  const processors = (client: ExtractorClient) =>
    new TaskProcessors(client, {
      scrapeFormats: ['markdown'],
      isCancelled: (id) => canceller.isCancelled(id),
      cancelPollMs: 10,
    });
  const jobOf = async (id: string) => (await queues.getJob(id)) as Job<TaskJobData>;

  it('a cancelled waiting task fails with TASK_CANCELLED without asking its extractor', async () => {
    const id = await submitUrl('https://site.test/w');
    const record = await canceller.cancel({ jobId: id, apiKeyId: 'key-a' });
    expect(record).toMatchObject({ taskId: id, status: 'waiting' });
    const stub = extractor();
    await expect(processors(stub.client).runUrl(await jobOf(id))).rejects.toThrow(
      `TASK_CANCELLED: task ${id} was cancelled`,
    );
    expect(stub.calls).toEqual([]);
  });

  it('a running task stops waiting for its extractor once cancelled, telling it so; its late answer is discarded', async () => {
    const id = await submitUrl('https://site.test/r');
    const stub = extractor();
    const running = processors(stub.client).runUrl(await jobOf(id));
    await Promise.race([stub.asked, running]);
    expect(stub.calls).toHaveLength(1); // waiting for its extractor now (and not settled: nothing answered it)
    expect(stub.signals[0]?.aborted).toBe(false);
    await canceller.cancel({ jobId: id, apiKeyId: 'key-a' });
    await expect(running).rejects.toThrow('TASK_CANCELLED');
    // The request's abandon signal aborted with the task's cancellation (MessagingClient sends the notice, ADR 0043).
    expect(stub.signals[0]?.aborted).toBe(true);
    expect(stub.signals[0]?.reason).toMatchObject({ code: 'TASK_CANCELLED' });
    stub.answer({ late: true });
    expect(stub.calls).toHaveLength(1);
  });

  it('a running task whose lock was lost tells its extractor to stop: another worker runs it (ADR 0043)', async () => {
    const id = await submitUrl('https://site.test/lock');
    const stub = extractor();
    const lockLost = new AbortController();
    const running = processors(stub.client).runUrl(await jobOf(id), lockLost.signal);
    await Promise.race([stub.asked, running]);
    expect(stub.signals[0]?.aborted).toBe(false);
    lockLost.abort(new Error('its lock was lost'));
    expect(stub.signals[0]?.aborted).toBe(true);
    expect(stub.signals[0]?.reason).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    // The attempt itself is ended by the worker (DelayedError, TaskWorkers); here its late answer still settles it.
    stub.answer({ ok: true });
    await expect(running).resolves.toEqual({ ok: true });
  });

  it('a task not cancelled runs as before', async () => {
    const id = await submitUrl('https://site.test/ok');
    const stub = extractor();
    const running = processors(stub.client).runUrl(await jobOf(id));
    await stub.asked;
    stub.answer({ ok: true });
    await expect(running).resolves.toEqual({ ok: true });
    expect(stub.signals[0]?.aborted).toBe(false);
  });

  it("cancelling a batch cancels its queries; another key's task is not found, as lookup answers", async () => {
    const { jobs } = await submitOverWire(submitter, {
      kind: 'search',
      request: { querys: ['a', 'b'], webhook: WEBHOOK },
      apiKeyId: 'key-a',
    });
    const parent = jobs[0]!.id;
    await expect(canceller.cancel({ jobId: parent, apiKeyId: 'key-b' })).rejects.toMatchObject({
      code: 'TASK_NOT_FOUND',
      message: `no task with id ${parent}`,
    });
    expect(await canceller.isCancelled(parent)).toBe(false);
    const record = await canceller.cancel({ jobId: parent, apiKeyId: 'key-a' });
    expect(record.status).toBe('waiting-children');
    const { unprocessed = [] } = await (await jobOf(parent)).getDependencies({ unprocessed: { count: 10 } });
    expect(unprocessed).toHaveLength(2);
    for (const key of unprocessed) expect(await canceller.isCancelled(key.slice(key.lastIndexOf(':') + 1))).toBe(true);
    expect(await canceller.isCancelled(parent)).toBe(true);
  });

  it('refuses a malformed id before the canceller sees it (by the row DTO), naming the field', () => {
    expect(() => SUBJECT_TABLE.taskCancel.request.parse({ jobId: 'a b' })).toThrow(
      expect.objectContaining({
        code: 'VALIDATION_FAILED',
        field: 'jobId',
      }),
    );
  });
});
