import 'reflect-metadata';
import { Type } from 'class-transformer';
import {
  Allow,
  IsArray,
  IsIn,
  IsInt,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  MaxLength,
  Validate,
  ValidateIf,
  ValidateNested,
  ValidatorConstraint,
  type ValidatorConstraintInterface,
} from 'class-validator';
import type { WireError } from '../envelope.schema.js';
import { isWireError } from '../error-codes.constants.js';
import {
  TASK_EVENTS,
  TASK_STATUSES,
  type TaskEventName,
  type TaskFinishedEvent,
  type TaskStatus,
  type TraceCarrier,
} from '../task.types.js';
import type { TaskRecord } from '../task-response.schema.js';
import { IsTraceCarrier } from './trace-carrier.validator.js';

/** `error` of a task record: a WireError, or null. */
@ValidatorConstraint({ name: 'isWireErrorOrNull' })
export class IsWireErrorOrNull implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return value === null || isWireError(value);
  }

  defaultMessage(): string {
    return 'error must be null or a wire error (code, message, retryable)';
  }
}

/** A task record as it crosses the wire (task lookup's reply, an outcome's `task`): TaskRecord, checked. */
export class TaskRecordDto implements TaskRecord {
  @IsString()
  @MaxLength(200)
  taskId!: string;

  @IsIn(TASK_STATUSES)
  status!: TaskStatus;

  @IsObject()
  params!: Record<string, unknown>;

  /** The task's result (any JSON), null until it completes. */
  @Allow()
  data: unknown = null;

  @IsOptional()
  @Validate(IsWireErrorOrNull)
  error?: WireError | null;

  @IsNumber()
  progress!: number;

  @IsInt()
  attemptsMade!: number;

  @ValidateIf((o: TaskRecordDto) => o.finishedOn !== null)
  @IsNumber()
  finishedOn!: number | null;

  @ValidateIf((o: TaskRecordDto) => o.processedOn !== null)
  @IsNumber()
  processedOn!: number | null;

  @IsArray()
  @IsString({ each: true })
  stacktrace!: string[];
}

/**
 * JetStream payload of `task.finished.v1` (TaskFinishedEvent), as the webhook dispatcher reads it: an outcome that is
 * not one is dropped, never delivered half-read.
 */
export class TaskFinishedEventDto implements TaskFinishedEvent {
  @IsString()
  @MaxLength(200)
  eventId!: string;

  @IsIn(TASK_EVENTS)
  event!: TaskEventName;

  @IsString()
  @MaxLength(4096)
  webhook!: string;

  @IsOptional()
  @IsString()
  @MaxLength(200)
  apiKeyId?: string;

  @ValidateNested()
  @Type(() => TaskRecordDto)
  task!: TaskRecordDto;

  @IsOptional()
  @Validate(IsTraceCarrier)
  trace?: TraceCarrier;

  @IsNumber()
  occurredAt!: number;
}
