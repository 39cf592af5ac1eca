import { Controller, UseFilters } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { SUBJECTS, type TaskRecord, type TaskSubmitReply } from '@trawl/contracts';
import { WireErrorFilter } from '@trawl/messaging';
import { TaskCanceller, TaskReader, TaskSubmitter } from '@trawl/tasks';

/** Batch submission, task lookup and cancellation over NATS; payloads are validated by the submitter, reader and canceller. */
@Controller()
@UseFilters(WireErrorFilter)
export class TasksController {
  constructor(
    private readonly submitter: TaskSubmitter,
    private readonly reader: TaskReader,
    private readonly canceller: TaskCanceller,
  ) {}

  @MessagePattern(SUBJECTS.taskSubmit)
  submit(@Payload() payload: unknown): Promise<TaskSubmitReply> {
    return this.submitter.submit(payload);
  }

  @MessagePattern(SUBJECTS.taskGet)
  get(@Payload() payload: unknown): Promise<TaskRecord> {
    return this.reader.get(payload);
  }

  @MessagePattern(SUBJECTS.taskCancel)
  cancel(@Payload() payload: unknown): Promise<TaskRecord> {
    return this.canceller.cancel(payload);
  }
}
