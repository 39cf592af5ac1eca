import { TrawlError, type TaskRecord } from '@trawl/contracts';
import { JOB_ID_PATTERN } from './task-job-id.js';
import type { TaskQueues } from './task-queues.js';
import { toTaskRecord } from './task-views.js';

/** Task lookup (`task.get.v1`): the job's current state and result, read from BullMQ. */
export class TaskReader {
  constructor(private readonly queues: TaskQueues) {}

  async get(payload: unknown): Promise<TaskRecord> {
    const jobId =
      typeof payload === 'object' && payload !== null ? (payload as Record<string, unknown>).jobId : undefined;
    if (typeof jobId !== 'string' || !JOB_ID_PATTERN.test(jobId)) {
      throw new TrawlError('VALIDATION_FAILED', 'jobId must be 1-200 letters, digits, "_" or "-"', { field: 'jobId' });
    }
    const job = await this.queues.getJob(jobId);
    if (!job) throw new TrawlError('TASK_NOT_FOUND', `no task with id ${jobId}`);
    const state = await job.getState();
    // The job finished between the two reads: read it again, so status and result agree.
    if ((state === 'completed' || state === 'failed') && job.finishedOn === undefined) {
      const finished = await this.queues.getJob(jobId);
      if (finished) return toTaskRecord(finished, state);
    }
    return toTaskRecord(job, state);
  }
}
