import type { Job } from 'bullmq';
import { QUEUES, TrawlError, type TaskLookupRequestDto, type TaskRecord } from '@trawl/contracts';
import type { TaskJobData } from './task-job-data.types.js';
import type { TaskQueues } from './task-queues.service.js';
import { ownsTask } from './task.reader.js';
import { toTaskRecord } from './task-views.mapper.js';

/** The field of a job's BullMQ hash that marks it cancelled (epoch ms); it dies with the job. */
export const CANCEL_FIELD = 'trawlCancelledAt';

/** Marks the hash only while it exists: a job removed meanwhile must not come back as a stray hash. */
const MARK = `if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) return 1 end return 0`;

export interface TaskCancellerOptions {
  /** How long a cancel waits for a waiting task to reach its final state before answering, ms. */
  settleMs: number;
  pollMs: number;
}

export const DEFAULT_TASK_CANCELLER_OPTIONS: TaskCancellerOptions = { settleMs: 3000, pollMs: 50 };

/** The error a cancelled task fails with: its outcome's `error`. */
export function taskCancelledError(jobId: string): TrawlError {
  return new TrawlError('TASK_CANCELLED', `task ${jobId} was cancelled`);
}

/**
 * Task cancellation (`task.cancel.v1`). Cancelling marks the job's hash (CANCEL_FIELD); the worker that takes a
 * marked job fails it with TASK_CANCELLED without calling its extractor, and a running job's worker, which watches
 * the mark, stops waiting for its extractor and fails it the same way (the extractor's late answer is discarded). So
 * the outcome is an ordinary final state, published and delivered by webhook like any other. A waiting or delayed job
 * is moved to the head of its queue so that it fails at once rather than in its turn; a batch parent's unsettled
 * queries are cancelled with it. As lookup, a task is found only by the key that submitted it; a finished task
 * answers TASK_FINISHED.
 */
export class TaskCanceller {
  constructor(
    private readonly queues: TaskQueues,
    private readonly options: TaskCancellerOptions = DEFAULT_TASK_CANCELLER_OPTIONS,
  ) {}

  /** Whether job `jobId` was cancelled (its hash carries the mark). */
  async isCancelled(jobId: string): Promise<boolean> {
    const key = this.queues.jobHashKey(jobId);
    if (!key) return false;
    return (await this.queues.connection.hexists(key, CANCEL_FIELD)) === 1;
  }

  /** Answers a `task.cancel.v1` request, already checked against its row (SUBJECT_TABLE.taskCancel). */
  async cancel({ jobId, apiKeyId }: TaskLookupRequestDto): Promise<TaskRecord> {
    const job = await this.queues.getJob(jobId);
    if (!job || !ownsTask(job.data, apiKeyId)) throw new TrawlError('TASK_NOT_FOUND', `no task with id ${jobId}`);
    const state = await job.getState();
    if (state === 'completed' || state === 'failed') {
      throw new TrawlError('TASK_FINISHED', `task ${jobId} already finished (${state}); there is nothing to cancel`);
    }
    await this.mark(jobId);
    if (job.queueName === QUEUES.batch) {
      // A batch's queries still to run are cancelled with it; then the parent runs and fails as cancelled.
      const { unprocessed = [] } = await job.getDependencies({ unprocessed: { count: 100_000 } });
      for (const childKey of unprocessed) {
        const childId = childKey.slice(childKey.lastIndexOf(':') + 1);
        await this.mark(childId);
        const child = await this.queues.getJob(childId);
        if (child) await this.hurry(child);
      }
    }
    await this.hurry(job);
    return this.settled(jobId);
  }

  private async mark(jobId: string): Promise<void> {
    const key = this.queues.jobHashKey(jobId);
    if (key) await this.queues.connection.eval(MARK, 1, key, CANCEL_FIELD, String(Date.now()));
  }

  /** A waiting or delayed job goes to the head of its queue, so a worker fails it now rather than in its turn. */
  private async hurry(job: Job<TaskJobData>): Promise<void> {
    const state = await job.getState();
    try {
      if (state === 'delayed') await job.promote();
      if (state === 'delayed' || state === 'waiting' || state === 'prioritized') {
        await job.changePriority({ priority: 0, lifo: true });
      }
    } catch {
      // It moved on meanwhile (taken by a worker): the worker sees the mark.
    }
  }

  /** The task's record once it reached its final state, or as it is when that takes longer than settleMs. */
  private async settled(jobId: string): Promise<TaskRecord> {
    const until = Date.now() + this.options.settleMs;
    for (;;) {
      const job = await this.queues.getJob(jobId);
      if (!job) throw new TrawlError('TASK_NOT_FOUND', `no task with id ${jobId}`);
      const state = await job.getState();
      const final = state === 'completed' || state === 'failed';
      if (final || Date.now() >= until) {
        const finished = final && job.finishedOn === undefined ? await this.queues.getJob(jobId) : job;
        return toTaskRecord(finished ?? job, state);
      }
      await new Promise((r) => setTimeout(r, this.options.pollMs));
    }
  }
}
