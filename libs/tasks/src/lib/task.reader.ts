import { TrawlError, type TaskLookupRequestDto, type TaskRecord } from '@trawl/contracts';
import type { TaskQueues } from './task-queues.service.js';
import { toTaskRecord } from './task-views.mapper.js';

/** The one answer to a task that does not exist or belongs to another key: the two must not be told apart. */
function taskNotFound(jobId: string): TrawlError {
  return new TrawlError('TASK_NOT_FOUND', `no task with id ${jobId}`);
}

/**
 * Whether the caller `apiKeyId` may see a job whose data is `data`: only the key that submitted it. A job submitted
 * without a key is seen only by a caller without one (the gateway always sends its caller's key id). Child jobs of a
 * maps or search batch carry no key and so are never shown to a keyed caller: their parent is the task.
 */
export function ownsTask(data: unknown, apiKeyId: string | undefined): boolean {
  const owner = typeof data === 'object' && data !== null ? (data as Record<string, unknown>).apiKeyId : undefined;
  return (typeof owner === 'string' ? owner : undefined) === apiKeyId;
}

/**
 * Task lookup (`task.get.v1`): the job's current state and result, read from BullMQ. A task is found only by the key
 * that submitted it; any other key gets TASK_NOT_FOUND with the same message as an unknown id (no existence oracle).
 */
export class TaskReader {
  constructor(private readonly queues: TaskQueues) {}

  /** Answers a `task.get.v1` request, already checked against its row (SUBJECT_TABLE.taskGet). */
  async get({ jobId, apiKeyId }: TaskLookupRequestDto): Promise<TaskRecord> {
    const job = await this.queues.getJob(jobId);
    if (!job || !ownsTask(job.data, apiKeyId)) throw taskNotFound(jobId);
    const state = await job.getState();
    // The job finished between the two reads: read it again, so status and result agree.
    if ((state === 'completed' || state === 'failed') && job.finishedOn === undefined) {
      const finished = await this.queues.getJob(jobId);
      if (finished) return toTaskRecord(finished, state);
    }
    return toTaskRecord(job, state);
  }
}
