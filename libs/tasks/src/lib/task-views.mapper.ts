import type { Job } from 'bullmq';
import { TASK_STATUSES, type BatchJob, type BatchJobOpts, type TaskRecord, type TaskStatus } from '@trawl/contracts';
import { wireErrorOf } from './task-error.mapper.js';
import { echoOf, type TaskJobData } from './task-job-data.types.js';

/** A BullMQ job's state as a task status (`prioritized` is waiting to the caller). */
export function taskStatusOf(state: string): TaskStatus {
  if (state === 'prioritized') return 'waiting';
  return (TASK_STATUSES as readonly string[]).includes(state) ? (state as TaskStatus) : 'unknown';
}

function numberOr(value: unknown, fallback: number): number {
  return typeof value === 'number' ? value : fallback;
}

/** The job options the caller is shown: the four the spec lists. */
export function optsOf(job: Job): BatchJobOpts {
  const { attempts, removeOnComplete, removeOnFail, backoff } = job.opts;
  return {
    attempts: numberOr(attempts, 1),
    removeOnComplete: numberOr(removeOnComplete, 0),
    removeOnFail: numberOr(removeOnFail, 0),
    backoff:
      typeof backoff === 'object' && backoff !== null
        ? { type: backoff.type, delay: numberOr(backoff.delay, 0) }
        : { type: 'fixed', delay: numberOr(backoff, 0) },
  };
}

/** A job as a batch submission returns it: BullMQ's Job.toJSON() fields the spec lists. */
export function toBatchJob(job: Job<TaskJobData>): BatchJob {
  return {
    name: job.name,
    data: echoOf(job.data),
    opts: optsOf(job),
    id: String(job.id),
    progress: numberOr(job.progress, 0),
    returnvalue: job.returnvalue ?? null,
    stacktrace: job.stacktrace ?? null,
    priority: job.priority ?? 0,
    attemptsStarted: job.attemptsStarted ?? 0,
    attemptsMade: job.attemptsMade,
    timestamp: job.timestamp,
    queueQualifiedName: job.queueQualifiedName,
  };
}

/** A job as task lookup (and the webhook) shows it. */
export function toTaskRecord(job: Job<TaskJobData>, state: string): TaskRecord {
  const status = taskStatusOf(state);
  return {
    taskId: String(job.id),
    status,
    params: { ...echoOf(job.data) },
    data: status === 'completed' ? (job.returnvalue ?? null) : null,
    error: status === 'completed' ? null : wireErrorOf(job.failedReason),
    progress: numberOr(job.progress, 0),
    attemptsMade: job.attemptsMade,
    finishedOn: job.finishedOn ?? null,
    processedOn: job.processedOn ?? null,
    stacktrace: job.stacktrace ?? [],
  };
}
