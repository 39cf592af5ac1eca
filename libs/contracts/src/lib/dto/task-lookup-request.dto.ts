import { IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { JOB_ID_PATTERN, JOB_ID_RULE } from '../job-id.constants.js';

/**
 * NATS payload of `task.get.v1` and `task.cancel.v1`: the task's id and the id of the API key asking. A task is found
 * only by the key that submitted it (its `apiKeyId`); another key's lookup or cancel is answered exactly as an unknown
 * id is (TASK_NOT_FOUND).
 */
export class TaskLookupRequestDto {
  @IsString({ message: JOB_ID_RULE })
  @Matches(JOB_ID_PATTERN, { message: JOB_ID_RULE })
  jobId!: string;

  @IsOptional()
  @IsString()
  @MaxLength(200)
  apiKeyId?: string;
}
