import { IsInt, IsOptional, IsString, MaxLength, Min, MinLength } from 'class-validator';

/** NATS payload of `task.queue.v1`: the key whose jobs are asked about, and its own cap when it has one. */
export class KeyQueueRequestDto {
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  apiKeyId!: string;

  /** The key's own cap of outstanding jobs; absent: task-service's TASK_MAX_OUTSTANDING_PER_KEY. */
  @IsOptional()
  @IsInt()
  @Min(1)
  maxOutstanding?: number;
}
