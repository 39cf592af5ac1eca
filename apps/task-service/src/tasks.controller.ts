import { Controller, UseFilters } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  KeyQueueRequestDto,
  SUBJECTS,
  TaskLookupRequestDto,
  type KeyQueueJobs,
  type TaskRecord,
  type TaskSubmitReply,
  type TaskSubmitRequest,
} from '@trawl/contracts';
import { ServesSubject, WireErrorFilter } from '@trawl/messaging';
import { TaskCanceller, TaskReader, TaskSubmitter } from '@trawl/tasks';

/** Batch submission, task lookup and cancellation, and a key's queue, over NATS; payloads are checked against their rows (SUBJECT_TABLE). */
@Controller()
@UseFilters(WireErrorFilter)
export class TasksController {
  constructor(
    private readonly submitter: TaskSubmitter,
    private readonly reader: TaskReader,
    private readonly canceller: TaskCanceller,
  ) {}

  @ServesSubject(SUBJECTS.taskSubmit)
  submit(@Payload() req: TaskSubmitRequest): Promise<TaskSubmitReply> {
    return this.submitter.submit(req);
  }

  @ServesSubject(SUBJECTS.taskGet)
  get(@Payload() req: TaskLookupRequestDto): Promise<TaskRecord> {
    return this.reader.get(req);
  }

  /** Where the key's jobs stand: outstanding, running, waiting, its cap, its last success (ADR 0041). */
  @ServesSubject(SUBJECTS.taskQueue)
  queue(@Payload() req: KeyQueueRequestDto): Promise<KeyQueueJobs> {
    return this.submitter.admission.status(req.apiKeyId, req.maxOutstanding);
  }

  @ServesSubject(SUBJECTS.taskCancel)
  cancel(@Payload() req: TaskLookupRequestDto): Promise<TaskRecord> {
    return this.canceller.cancel(req);
  }
}
